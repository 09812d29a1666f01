/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_PRIV_H_
#define _REFNIC_EMU_PRIV_H_

/*
 * The device instance, struct refnic_emu, and what every area of device/
 * reads of it. The driver never sees this.
 *
 * Each area has its own header (refnic_emu_<area>.h: its state, its
 * functions); a file includes the areas it calls. The state an area owns
 * in every device (queues, tails, admin queue, event queue, vectors, flow
 * table, DMA cache, fault_corrupt's and secondaries' counts) is declared
 * in the area's header and embedded here, so those headers see the device
 * only by name. The inline helpers that need the whole device and run per
 * frame or per descriptor (registers, state, shards, caps, the DMA cache
 * look-up in refnic_emu_dma_map.h) are here, so they stay inline.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_memzone.h>
#include <rte_per_lcore.h>
#include <rte_pause.h>
#include <rte_spinlock.h>

#include "refnic_emu.h"
#include "refnic_emu_admin.h"
#include "refnic_emu_corrupt.h"
#include "refnic_emu_dma.h"
#include "refnic_emu_events.h"
#include "refnic_emu_flow.h"
#include "refnic_emu_intr.h"
#include "refnic_emu_link.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_remote.h"
#include "refnic_emu_rss.h"
#include "refnic_emu_simd.h"
#include "refnic_emu_trap.h"

extern int refnic_emu_logtype;
#define EMU_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, refnic_emu_logtype, "refnic-dev: " fmt "\n", ##__VA_ARGS__)

struct refnic_emu_cable;

/*
 * A thread's own of a device, beside its counter shard (refnic_emu_intr.h):
 * the DMA translation cache, and for engines what they last saw.
 */
struct refnic_emu_shard {
	struct refnic_dma_cache dma;
	uint32_t write_seq_seen;	/* link write_seq at this engine's last pass */
	/* This thread's passes holding the device's receive configuration
	 * (emu_rx_config_hold()): on the thread's own line, not one that
	 * every lcore delivering into the device writes. */
	uint32_t rx_config_readers;
	struct refnic_emu_path_stats path;	/* added per pass */
} __rte_cache_aligned;

struct refnic_emu {
	TAILQ_ENTRY(refnic_emu) next;
	char name[REFNIC_EMU_NAME_LEN];
	struct refnic_emu_params params;
	const struct refnic_profile *profile;
	bool inline_exec;		/* TX doorbells run TX work on the writer */
	/* The profile's costs in TSC cycles, converted once (charged per
	 * store, per push, per fetch). None inline for the fetch. */
	uint64_t desc_fetch_tsc;
	uint64_t push_burst_tsc;
	bool push_wc;			/* push window write-combining (bar_wc=) */
	struct refnic_emu_push_probe push_probe;	/* refnic_emu_push.c */
	enum refnic_emu_simd simd;	/* descriptor stages (device_simd=): never AUTO */

	uint8_t *bar0;			/* in bar_mz, which other processes map */
	const struct rte_memzone *bar_mz;
	/* In bar_mz too; an shm view maps its far end's (or has none). */
	struct refnic_emu_clock *clock;
	struct refnic_emu_secondary secondary;	/* refnic_emu_remote.c */
	struct refnic_emu_link *link;
	uint16_t nb_vectors;
	int vector_fd[REFNIC_MAX_VECTORS];
	/* Queue vectors: intr_own, or the cable's file for an shm port, whose
	 * far end raises them too (then intr_cable, whose locks they take). */
	struct refnic_emu_intr *intr;
	struct refnic_emu_cable *intr_cable;
	uint64_t fatal_at_tsc;		/* fault_fatal: when; 0: not (any more) */
	struct refnic_emu_corrupt corrupt;	/* refnic_emu_corrupt.c */

	enum refnic_hw_state state;	/* emu_state(): read by every thread */
	/*
	 * What receiving looks at (MTU, filters, features, RSS, flows): held
	 * by senders' passes from their first frame into this device to the
	 * pass's end, each counted in its thread's shard; changed with every
	 * pass out (admin commands, resets), as a NIC applies a change between
	 * frames. The flag is set while a writer changes it or waits for the
	 * passes to end (refnic_emu_rx_config_write_lock()); a pass that finds
	 * it set backs off. Read by every pass, written by none.
	 */
	uint32_t rx_config_writer;
	uint64_t reset_done_tsc;
	uint32_t reset_db_seen;

	struct refnic_emu_admin aq;
	struct refnic_emu_txq txq[REFNIC_MAX_QUEUES];
	struct refnic_emu_rxq rxq[REFNIC_MAX_QUEUES];
	/* Tails as the device took them (refnic_emu_trap.c). */
	struct refnic_emu_db txdb[REFNIC_MAX_QUEUES];
	struct refnic_emu_db rxdb[REFNIC_MAX_QUEUES];
	struct refnic_emu_db aqdb;
	uint64_t doorbells_dropped;	/* fault_doorbell_drop: TAIL writes missed */

	/* Port configuration, as set through the admin queue. */
	uint8_t mac[6];
	uint8_t perm_mac[6];
	uint32_t mtu;
	uint32_t rx_mode;		/* REFNIC_RX_MODE_* */
	uint8_t mac_filter[REFNIC_MAX_MAC_FILTERS][6];
	uint32_t nb_mac_filters;
	uint8_t mc_filter[REFNIC_MAX_MC_FILTERS][6];
	uint32_t nb_mc_filters;
	uint64_t vlan_filter[(REFNIC_MAX_VLAN_ID + 1) / 64];
	uint32_t features;		/* REFNIC_FEATURES_SWITCHABLE bits on */
	struct refnic_rss_config rss;	/* hash_types == 0: RSS off */
	struct refnic_emu_rss_table rss_table;	/* rss.key's, with RSS on */
	struct refnic_emu_flows flows;	/* REFNIC_CAP_FLOW */
	/* The work the above asks of every frame (REFNIC_EMU_RX_*), decided
	 * whenever it changes (refnic_emu_rx_plan_update()), not per frame. */
	uint8_t rx_plan;
	bool link_up;			/* as last reported */
	bool phy_down;			/* LINK_SET 0: no link, whatever the cable */
	struct refnic_emu_aeq aeq;
	struct refnic_emu_faults faults;
	uint32_t admin_fetched;		/* commands fetched since reset */
	bool dataplane_paused;		/* lab: queues not serviced */

	struct refnic_emu_cable *cable;
	/* An shm port: its receive side is published in the cable's file,
	 * and the far end's process delivers into it. */
	bool rx_published;
	/* This is not a device but the receive side of the far end of
	 * view_cable, as this process delivers into it (refnic_emu_cable_shm_port.c). */
	struct refnic_emu_cable *view_cable;
	/* Counters, one shard per thread: stats_own, or for a view the far
	 * end's file, where its device reads them. */
	struct refnic_hw_stats *stats;
	struct refnic_emu_shard shard[REFNIC_EMU_SHARDS];
	struct refnic_emu_intr intr_own;
	struct refnic_hw_stats stats_own[REFNIC_EMU_SHARDS] __rte_cache_aligned;
};

/*
 * The shard this thread counts into: its engine's, its trap slot's, or 0
 * for control threads (they hold every engine's lock). Read per frame: the
 * initial-exec model makes it one load, not a call.
 */
extern __thread unsigned int refnic_emu_shard_id
	__attribute__((tls_model("initial-exec")));

static inline struct refnic_emu_shard *
emu_shard(struct refnic_emu *emu)
{
	return &emu->shard[refnic_emu_shard_id];
}

static inline struct refnic_hw_stats *
emu_stats(struct refnic_emu *emu)
{
	return &emu->stats[refnic_emu_shard_id];
}

/* This thread's data path counts (refnic_emu_read_path_stats()). */
static inline struct refnic_emu_path_stats *
emu_path_stats(struct refnic_emu *emu)
{
	return &emu->shard[refnic_emu_shard_id].path;
}

/*
 * A pass holds emu's receive configuration: counted in this thread's shard,
 * then the writer flag read, both sequentially consistent, so that either
 * the pass sees a writer and backs off or the writer sees the pass and
 * waits for it. Returns the count to give back (emu_rx_config_release()).
 */
static inline uint32_t *
emu_rx_config_hold(struct refnic_emu *emu)
{
	uint32_t *readers = &emu_shard(emu)->rx_config_readers;

	for (;;) {
		__atomic_fetch_add(readers, 1, __ATOMIC_SEQ_CST);
		if (likely(__atomic_load_n(&emu->rx_config_writer, __ATOMIC_SEQ_CST) == 0))
			return readers;
		__atomic_fetch_sub(readers, 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&emu->rx_config_writer, __ATOMIC_ACQUIRE) != 0)
			rte_pause();
	}
}

static inline void
emu_rx_config_release(uint32_t *readers)
{
	__atomic_fetch_sub(readers, 1, __ATOMIC_RELEASE);
}

/* The device's counters: every engine's, added up. */
void refnic_emu_stats_sum(const struct refnic_emu *emu, struct refnic_hw_stats *sum);

/* refnic_emu.c: registers and state, called by the engine. */
static inline uint32_t
emu_reg_read(const struct refnic_emu *emu, uint32_t off)
{
	return __atomic_load_n((const uint32_t *)(emu->bar0 + off), __ATOMIC_ACQUIRE);
}

static inline void
emu_reg_write(struct refnic_emu *emu, uint32_t off, uint32_t val)
{
	__atomic_store_n((uint32_t *)(emu->bar0 + off), val, __ATOMIC_RELEASE);
}

/*
 * Does the device have cap (REFNIC_CAP_*, bits 0..31)? As its CAPS register
 * says (caps_off= took it out there): what it lacks, it does not do, whatever
 * a driver asks. Read from the BAR, so a cable's view of a far end answers
 * for the far end.
 */
static inline bool
emu_has_cap(const struct refnic_emu *emu, uint64_t cap)
{
	return emu_reg_read(emu, REFNIC_REG_CAPS_LO) & cap;
}

/* The device's state (enum refnic_hw_state), as any thread reads it. */
static inline enum refnic_hw_state
emu_state(const struct refnic_emu *emu)
{
	return __atomic_load_n(&emu->state, __ATOMIC_ACQUIRE);
}

static inline void
emu_state_set(struct refnic_emu *emu, enum refnic_hw_state state)
{
	__atomic_store_n(&emu->state, state, __ATOMIC_RELEASE);
}

/* How many times the driver wrote register off (through the emulated BAR). */
static inline uint32_t
emu_reg_writes(const struct refnic_emu *emu, uint32_t off)
{
	return __atomic_load_n(&emu->link->write_count[off / 4], __ATOMIC_ACQUIRE);
}

uint64_t refnic_emu_us_to_tsc(uint64_t us);
void refnic_emu_update_link(struct refnic_emu *emu);
/*
 * One engine pass over a device; returns work done, lowers *next_due_tsc.
 * settled: the engine has had no work for a while, time to write the HEAD
 * registers.
 */
unsigned int refnic_emu_service(struct refnic_emu *emu, unsigned int engine, uint64_t now,
				bool settled, uint64_t *next_due_tsc);

/* Descriptors per TX packet this device takes (max_tx_segs=; 0: the contract's). */
static inline uint16_t
refnic_emu_max_tx_segs(const struct refnic_emu *emu)
{
	return emu->params.max_tx_segs != 0 ? emu->params.max_tx_segs : REFNIC_MAX_TX_SEGS;
}

#endif /* _REFNIC_EMU_PRIV_H_ */
