/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_H_
#define _REFNIC_EMU_H_

/*
 * The refnic NIC in software: the API the bus side of probe uses to create
 * an instance and hand its resources to the PMD, as the PCI bus hands a
 * mem_resource and an intr_handle. Nothing in drivers/net/refnic/ other than
 * the bus glue includes this file.
 */

#include <stdbool.h>
#include <stdint.h>

#include "refnic_hw.h"
#include "refnic_emu_bar.h"

#define REFNIC_EMU_NAME_LEN		64
#define REFNIC_EMU_MAX_ENGINES		8	/* engine threads per process */

/* Timing profiles: what the modelled platform charges. See refnic_profile.c. */
enum refnic_emu_profile {
	REFNIC_PROFILE_IDEAL,		/* nothing costs anything */
	REFNIC_PROFILE_BAREMETAL,	/* PCIe device on bare metal */
	REFNIC_PROFILE_VM,		/* same device behind a VM exit */
	REFNIC_PROFILE_COUNT
};

#define REFNIC_EMU_FAULT_ANY_OPCODE	0xff

/* Faults the device commits on purpose, so that every failure path has a test. */
struct refnic_emu_faults {
	uint8_t admin_timeout_opcode;	/* drop this command, or ANY_OPCODE */
	uint32_t admin_timeout_times;	/* ... this many times (UINT32_MAX: always, 0: off) */
	uint32_t admin_timeout_every;	/* drop every Nth command; 0: off */
	uint32_t reset_fail_times;	/* resets that never finish */
};

struct refnic_emu_params {
	/* "loopback", or a name: two ports naming it are wired together. */
	char cable[REFNIC_EMU_NAME_LEN];
	enum refnic_emu_profile profile;
	uint16_t max_queues;		/* queue pairs the device offers */
	uint16_t engines;		/* engine threads its queues are spread over:
					 * queue q is served by engine q % engines */
	uint32_t admin_latency_pct;	/* scales admin latencies, 100 = as profiled */
	struct refnic_emu_faults faults;
};

/* Resources the bus hands to the driver. */
struct refnic_emu_resources {
	uint8_t *bar0;			/* REFNIC_BAR0_SIZE bytes of registers */
	struct refnic_emu_link *link;	/* the emulated BAR's trap side */
	uint16_t nb_vectors;
	int vector_fd[REFNIC_MAX_VECTORS]; /* eventfds, one per vector */
};

struct refnic_emu;

void refnic_emu_params_default(struct refnic_emu_params *params);

/*
 * fault_admin_timeout=<command>[:<times>] | every:<n>. <command> is an admin
 * opcode name (queue_create, ...) or "any". Logs and fails on a bad value.
 */
int refnic_emu_parse_admin_timeout(const char *value, struct refnic_emu_faults *faults);

/* A profile by the name users type (profile=...); -EINVAL if unknown. */
int refnic_emu_profile_parse(const char *name, enum refnic_emu_profile *profile);

/* Create a device instance; starts the shared engine with the first one. */
int refnic_emu_create(const char *name, const struct refnic_emu_params *params,
		      struct refnic_emu **out);
void refnic_emu_destroy(struct refnic_emu *emu);
void refnic_emu_get_resources(const struct refnic_emu *emu,
			      struct refnic_emu_resources *res);

/* Lab access for tests, as an instrument next to a real NIC would have it. */
struct refnic_emu *refnic_emu_lookup(const char *name);
void refnic_emu_read_stats(struct refnic_emu *emu, struct refnic_hw_stats *stats);
/* The part of them counted by engine thread `engine` (any engine of the
 * process may count, e.g. delivering from the far end); -EINVAL past
 * REFNIC_EMU_MAX_ENGINES. */
int refnic_emu_read_engine_stats(struct refnic_emu *emu, unsigned int engine,
				 struct refnic_hw_stats *stats);
void refnic_emu_set_faults(struct refnic_emu *emu, const struct refnic_emu_faults *faults);
/* The device fails: state FATAL with REFNIC_FATAL_INJECTED, and an event says so. */
void refnic_emu_inject_fatal(struct refnic_emu *emu);
/* Stop or resume the device's data path (admin still answers): a stalled DMA engine. */
void refnic_emu_set_dataplane_paused(struct refnic_emu *emu, bool paused);
/* The device's RSS hash (Toeplitz, key of len + 4 bytes at least). */
uint32_t refnic_toeplitz(const uint8_t *key, const uint8_t *data, uint32_t len);
/* Pull or push back the cable: both of its ends see the link go down or up. */
void refnic_emu_set_cable_plugged(struct refnic_emu *emu, bool plugged);

#endif /* _REFNIC_EMU_H_ */
