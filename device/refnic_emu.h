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
#include <stddef.h>
#include <stdint.h>

#include <rte_kvargs.h>

#include "refnic_hw.h"

#define REFNIC_EMU_NAME_LEN		64
#define REFNIC_EMU_MAX_ENGINES		8	/* engine threads per process */

/* Timing profiles: what the modelled platform charges. See refnic_emu_profile.c. */
enum refnic_emu_profile {
	REFNIC_PROFILE_IDEAL,		/* nothing costs anything */
	REFNIC_PROFILE_BAREMETAL,	/* PCIe device on bare metal */
	REFNIC_PROFILE_VM,		/* same device behind a VM exit */
	REFNIC_PROFILE_COUNT
};

/*
 * Where the device's queue work runs (exec=...): on engine threads, as on a
 * NIC's own processor, or inline on the thread whose TX doorbell store the
 * BAR traps, as a hypervisor's device model runs in the trapped write.
 */
enum refnic_emu_exec {
	REFNIC_EXEC_AUTO,		/* inline where the profile allows it */
	REFNIC_EXEC_INLINE,
	REFNIC_EXEC_THREAD,
};

#define REFNIC_EMU_FAULT_ANY_OPCODE	0xff

/* Faults the device commits on purpose, so that every failure path has a test. */
struct refnic_emu_faults {
	uint8_t admin_timeout_opcode;	/* drop this command, or ANY_OPCODE */
	uint32_t admin_timeout_times;	/* ... this many times (UINT32_MAX: always, 0: off) */
	uint32_t admin_timeout_every;	/* drop every Nth command; 0: off */
	uint32_t reset_fail_times;	/* resets that never finish */
	/* Hostile device: garble one in corrupt_every of what it writes to
	 * host memory, of the kinds in corrupt_what (0: off). */
	uint8_t corrupt_what;		/* REFNIC_EMU_CORRUPT_* */
	uint32_t corrupt_every;
	uint32_t fatal_after_ms;	/* fatal this long after creation; 0: never */
	uint32_t doorbell_drop;		/* miss 1 in this many TAIL writes; 0: off */
	bool wc_garble;			/* push stores arrive torn, every other
					 * 8-byte word lost (a broken WC mapping) */
	uint64_t caps_lost_at_reset;	/* REFNIC_CAP_* the device comes back
					 * without from its next reset, for good
					 * (a firmware downgrade) */
};

/* How the modelled platform maps the push window (bar_wc=). */
enum refnic_emu_bar_wc {
	REFNIC_BAR_WC_AUTO,		/* as the profile's platform does */
	REFNIC_BAR_WC_ON,		/* write-combining */
	REFNIC_BAR_WC_OFF,		/* uncached: one transaction per store */
};

/* The device's descriptor stages (device_simd=, refnic_emu_simd.h). */
enum refnic_emu_simd {
	REFNIC_EMU_SIMD_AUTO,		/* as the CPU and EAL's SIMD limit allow */
	REFNIC_EMU_SIMD_SCALAR,
	REFNIC_EMU_SIMD_SSE,
	REFNIC_EMU_SIMD_AVX2,
};

#define REFNIC_EMU_CORRUPT_RX		0x1u	/* RX completions */
#define REFNIC_EMU_CORRUPT_TX		0x2u	/* TX completions */
#define REFNIC_EMU_CORRUPT_ADMIN	0x4u	/* admin completions */
#define REFNIC_EMU_CORRUPT_EVENT	0x8u	/* async events */
#define REFNIC_EMU_CORRUPT_REPLY	0x10u	/* admin reply buffers */
#define REFNIC_EMU_CORRUPT_ANY		0x1fu

struct refnic_emu_params {
	/* "loopback", or a name: two ports naming it are wired together. */
	char cable[REFNIC_EMU_NAME_LEN];
	uint32_t vxlan_vni;		/* cable=vxlan: the VNI sent and taken */
	char vxlan_local[REFNIC_EMU_NAME_LEN]; /* cable=vxlan: ADDR[:PORT] bound;
					 * "": any address, port 4789 */
	uint8_t mac[6];			/* the port's permanent address (mac=);
					 * all zero: derived from the device name */
	enum refnic_emu_profile profile;
	enum refnic_emu_exec exec;
	uint16_t max_queues;		/* queue pairs the device offers */
	uint16_t engines;		/* engine threads its queues are spread over:
					 * queue q is served by engine q % engines */
	uint32_t admin_latency_pct;	/* scales admin latencies, 100 = as profiled */
	uint32_t errata;		/* REFNIC_ERRATA_* this revision has (errata=) */
	enum refnic_emu_bar_wc bar_wc;
	enum refnic_emu_simd simd;	/* device_simd= */
	uint16_t max_tx_segs;		/* advertised and enforced (max_tx_segs=);
					 * 0: REFNIC_MAX_TX_SEGS */
	uint64_t caps_off;		/* REFNIC_CAP_* this device lacks (caps_off=) */
	struct refnic_emu_faults faults;
};

/*
 * The emulated BAR's write trap, like a hypervisor's MMIO write handler:
 * called after every register store the driver makes, with the store's
 * offset and value.
 */
typedef void (*refnic_emu_trap_t)(void *ctx, uint32_t off, uint32_t val);

/* Resources the bus hands to the driver. */
struct refnic_emu_resources {
	uint8_t *bar0;			/* REFNIC_BAR0_SIZE bytes of registers */
	refnic_emu_trap_t trap;		/* the BAR's write trap */
	void *trap_ctx;
	uint16_t nb_vectors;
	int vector_fd[REFNIC_MAX_VECTORS]; /* eventfds, one per vector */
};

struct refnic_emu;

void refnic_emu_params_default(struct refnic_emu_params *params);

/*
 * The device's own devargs (cable, profile, queues, engines, exec, faults),
 * as users type them; the driver parses its own. NULL-terminated.
 */
extern const char * const refnic_emu_devargs_keys[];
#define REFNIC_EMU_PARAM_STRING \
	"cable=loopback|<name>|shm:<name>|tap:<ifname>|vxlan:<addr>[:<port>] " \
	"vxlan_vni=<0-16777215> " \
	"vxlan_local=<addr>[:<port>] " \
	"mac=<xx:xx:xx:xx:xx:xx> " \
	"profile=ideal|baremetal|vm " \
	"exec=auto|inline|thread " \
	"queues=<1-64> " \
	"engines=<1-8> " \
	"admin_latency_pct=<0-100000> " \
	"fault_admin_timeout=<command>[:<times>]|any[:<times>]|every:<n> " \
	"fault_reset_fail=<resets> " \
	"max_tx_segs=<1-32> " \
	"caps_off=<cap>[+<cap>...] " \
	"fault_corrupt=rx|tx|admin|reply|event|any:<n> " \
	"fault_fatal=after_ms:<ms> " \
	"fault_doorbell_drop=0|<2-1000000000> " \
	"errata=none|missed_doorbell " \
	"bar_wc=auto|on|off " \
	"device_simd=auto|scalar|sse|avx2 " \
	"fault_wc_garble=0|1"

/*
 * Fill params with the defaults and the device keys of kvlist (other keys
 * are the driver's). Logs one line and fails with -EINVAL on a bad value,
 * or on a combination the device cannot run (exec=inline with a profile
 * whose descriptor fetches take time).
 */
int refnic_emu_devargs_parse(const char *name, const struct rte_kvargs *kvlist,
			     struct refnic_emu_params *params);

/* Create a device instance; starts the shared engine with the first one. */
int refnic_emu_create(const char *name, const struct refnic_emu_params *params,
		      struct refnic_emu **out);
void refnic_emu_destroy(struct refnic_emu *emu);
void refnic_emu_get_resources(const struct refnic_emu *emu,
			      struct refnic_emu_resources *res);

/*
 * In a secondary process: attach to the primary's device of that name. The
 * BAR is the primary's (shared memory), the trap forwards each store to the
 * primary's engine; no interrupt vectors. Logs one line and fails if the
 * primary has no such device or does not answer.
 */
int refnic_emu_remote_attach(const char *name, struct refnic_emu_resources *res);
void refnic_emu_remote_detach(void *trap_ctx);

/* Lab access for tests, as an instrument next to a real NIC would have it. */
struct refnic_emu *refnic_emu_lookup(const char *name);
/* Wake the engines that doze, as a trapped store for them does (a test that
 * wrote what the device reads, e.g. a cable's shared memory, says so). */
void refnic_emu_kick_engines(struct refnic_emu *emu);
void refnic_emu_read_stats(struct refnic_emu *emu, struct refnic_hw_stats *stats);
/* The part of them counted by engine thread `engine` (any engine of the
 * process may count, e.g. delivering from the far end); -EINVAL past
 * REFNIC_EMU_MAX_ENGINES. */
int refnic_emu_read_engine_stats(struct refnic_emu *emu, unsigned int engine,
				 struct refnic_hw_stats *stats);
/*
 * How the data path went, counted once per pass, not per frame: what shows
 * that frames move in batches (every thread's, added up).
 */
struct refnic_emu_path_stats {
	uint64_t rx_bursts;		/* receive passes over plain frames, one
					 * queue held, checked and copied together */
	uint64_t rx_burst_frames;	/* frames those passes delivered */
	uint64_t rx_single_frames;	/* plain frames received one at a time */
	uint64_t rx_parsed;		/* frames whose headers were parsed */
	uint64_t rx_publishes;		/* runs of RX completions made visible */
	uint64_t tx_completions;	/* TX completions written */
	uint64_t tx_vec_descs;		/* TX descriptors taken in vector groups */
	uint64_t rx_vec_frames;		/* frames placed in vector groups */
};
/* Which descriptor stages the device runs: never REFNIC_EMU_SIMD_AUTO. */
enum refnic_emu_simd refnic_emu_simd_mode(const struct refnic_emu *emu);
void refnic_emu_read_path_stats(struct refnic_emu *emu, struct refnic_emu_path_stats *out);
/* New faults; REFNIC_REG_ERRATA follows fault_doorbell_drop. */
void refnic_emu_set_faults(struct refnic_emu *emu, const struct refnic_emu_faults *faults);
/* The device fails: state FATAL with REFNIC_FATAL_INJECTED, and an event says so. */
void refnic_emu_inject_fatal(struct refnic_emu *emu);
/* Entries fault_corrupt garbled so far. */
uint64_t refnic_emu_corrupted(struct refnic_emu *emu);
/*
 * For fuzzers: fn sees each RX or TX completion, admin completion, admin
 * reply buffer and event the device is about to hand over (what: one
 * REFNIC_EMU_CORRUPT_* kind) and may overwrite it; the device sets the
 * phase bit (of the command's completion, for a reply) afterwards. NULL: none.
 */
typedef void (*refnic_emu_tamper_t)(void *ctx, uint8_t what, void *entry, size_t len);
void refnic_emu_set_tamper(struct refnic_emu *emu, refnic_emu_tamper_t fn, void *ctx);
/* The device stops a queue on an error of its own, as an MDD event does:
 * status ERROR, a QUEUE_ERROR event; the port lives on. */
void refnic_emu_inject_queue_error(struct refnic_emu *emu, bool tx, uint16_t qid);
/* Stop or resume the device's data path (admin still answers): a stalled DMA engine. */
void refnic_emu_set_dataplane_paused(struct refnic_emu *emu, bool paused);
/* Pull or push back the cable: both of its ends see the link go down or up. */
void refnic_emu_set_cable_plugged(struct refnic_emu *emu, bool plugged);

#endif /* _REFNIC_EMU_H_ */
