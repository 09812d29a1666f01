/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_CABLE_H_
#define _REFNIC_EMU_CABLE_H_

/*
 * What a kind of cable implements. A cable carries the frames a port sends
 * to the far end, and brings frames from outside the process (another
 * process, the kernel) to the port when the engine polls it. Calls come from
 * the threads that run the port's TX work (tx, tx_flush), from the engine
 * or from control paths holding the device lock.
 */

#include "refnic_emu_priv.h"

struct refnic_cable;

struct refnic_cable_ops {
	/* Frames from outside wait for the engine (rx_service) to bring them in. */
	bool brings_frames;
	/* A frame the port sent; then tx_flush once per batch. */
	void (*tx)(struct refnic_cable *c, struct refnic_emu *emu,
		   const struct refnic_frame *f, struct refnic_rx_batch *b);
	void (*tx_flush)(struct refnic_cable *c, struct refnic_emu *emu,
			 struct refnic_rx_batch *b);
	/* Frames from outside, and far-end state changes; NULL if none. */
	unsigned int (*rx_service)(struct refnic_cable *c, struct refnic_emu *emu,
				   uint64_t now);
	bool (*link_up)(const struct refnic_cable *c, const struct refnic_emu *emu);
	/* Plug or pull: both ends see the link change. */
	void (*set_plugged)(struct refnic_cable *c, struct refnic_emu *emu, bool plugged);
	/*
	 * The engine is about to sleep: arm the wake-up and return the fd it
	 * should wait on (-1: none), or -EAGAIN if frames already wait.
	 */
	int (*doze_prepare)(struct refnic_cable *c);
	void (*doze_end)(struct refnic_cable *c);
	void (*detach)(struct refnic_cable *c, struct refnic_emu *emu);
};

struct refnic_cable {
	const struct refnic_cable_ops *ops;
	/* Both ends in the primary process (loopback, NAME): a secondary,
	 * whose ops are its own code's, dispatches on this. */
	bool in_process;
};

/* Prefixes of cable=... other than the in-process ones. */
#define REFNIC_CABLE_SHM_PREFIX		"shm:"
#define REFNIC_CABLE_TAP_PREFIX		"tap:"
#define REFNIC_CABLE_VXLAN_PREFIX	"vxlan:"

int refnic_cable_shm_attach(struct refnic_emu *emu, const char *name,
			    struct refnic_cable **out);
int refnic_cable_tap_attach(struct refnic_emu *emu, const char *ifname,
			    struct refnic_cable **out);
int refnic_cable_vxlan_attach(struct refnic_emu *emu, const char *remote,
			      struct refnic_cable **out);

/* refnic_emu_cable.c: the port's cable, whatever its kind. */
int refnic_cable_attach(struct refnic_emu *emu, const char *spec);
void refnic_cable_detach(struct refnic_emu *emu);
bool refnic_cable_link_up(const struct refnic_emu *emu);
/* LINK_SET: the port's PHY on or off; both ends of the cable see the link. */
void refnic_cable_set_phy(struct refnic_emu *emu, bool on);
/* Both ends in this process (loopback, NAME). */
bool refnic_cable_in_process(const struct refnic_emu *emu);
/* Frames come from outside the process (TAP): an engine brings them in. */
bool refnic_cable_external(const struct refnic_emu *emu);
/* Carry a frame the port sent; flush once per batch. */
void refnic_cable_tx(struct refnic_emu *emu, const struct refnic_frame *f,
		     struct refnic_rx_batch *b);
/* Plain frames (refnic_emu_queue.h), in order: as refnic_cable_tx() each. */
void refnic_cable_tx_plain(struct refnic_emu *emu, const struct refnic_plain_frame *pf,
			   unsigned int n, struct refnic_rx_batch *b);
void refnic_cable_tx_flush(struct refnic_emu *emu, struct refnic_rx_batch *b);
/* Bring in frames from outside the process; returns work done. */
unsigned int refnic_cable_rx_service(struct refnic_emu *emu, uint64_t now);
void refnic_cable_set_plugged(struct refnic_emu *emu, bool plugged);
/* Engine sleep: fd to wait on (-1: none), -EAGAIN if frames wait; then end. */
int refnic_cable_doze_prepare(struct refnic_emu *emu);
void refnic_cable_doze_end(struct refnic_emu *emu);

#endif /* _REFNIC_EMU_CABLE_H_ */
