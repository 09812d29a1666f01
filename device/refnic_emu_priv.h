/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_PRIV_H_
#define _REFNIC_EMU_PRIV_H_

/* Device internals shared by the files of device/. The driver never sees these. */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_memzone.h>
#include <rte_per_lcore.h>
#include <rte_rwlock.h>
#include <rte_spinlock.h>

#include "refnic_emu.h"
#include "refnic_emu_flow.h"
#include "refnic_emu_intr.h"
#include "refnic_emu_link.h"

extern int refnic_emu_logtype;
#define EMU_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, refnic_emu_logtype, "refnic-dev: " fmt "\n", ##__VA_ARGS__)

#define REFNIC_EMU_LINK_SPEED_MBPS	25000

/* Ethernet and IP, as far as the device looks into frames. */
#define EMU_ETH_HLEN		14
#define EMU_ETH_P_IPV4		0x0800
#define EMU_ETH_P_IPV6		0x86dd
#define EMU_ETH_P_VLAN		0x8100
#define EMU_IPPROTO_TCP		6
#define EMU_IPPROTO_UDP		17

/* refnic_emu_parse.c: where a frame's headers are. */
struct refnic_pkt_hdrs {
	uint8_t ip_version;	/* 4 or 6; 0: not IP, the rest is unset */
	uint8_t proto;		/* IP protocol or IPv6 next header */
	bool frag;		/* an IPv4 fragment: no L4 header to trust */
	uint32_t l3;		/* offsets in the frame */
	uint32_t l4;
	uint32_t len;		/* bytes parsed: what lies beyond is unseen */
};
void refnic_emu_parse(const uint8_t *p, uint32_t len, struct refnic_pkt_hdrs *h);

/* What the modelled platform charges; numbers and sources in refnic_emu_profile.c. */
struct refnic_profile {
	const char *name;
	uint32_t admin_latency_us[REFNIC_ADMIN_OPCODE_MAX];
	uint32_t reset_latency_us;
	uint32_t desc_fetch_ns;		/* DMA read of descriptors after a doorbell */
	uint32_t bar_store_ns;		/* driver CPU cost of one non-WC BAR store,
					 * uncached push window stores included */
	uint32_t push_burst_ns;		/* one write-combined push window burst */
	bool push_wc;			/* the platform maps the push window WC */
	/* A device model the doorbell's trap may run (exec=inline): it reads
	 * descriptors straight from memory, no fetch to wait for. */
	bool trap_and_emulate;
	int32_t clock_skew_ppb;		/* the clock's oscillator error (1.4) */
};

const struct refnic_profile *refnic_profile_get(enum refnic_emu_profile id);
/* A profile by the name users type (profile=...); -EINVAL if unknown. */
int refnic_emu_profile_parse(const char *name, enum refnic_emu_profile *profile);

/* refnic_emu_devargs.c: settings back in the form users type them. */
const char *refnic_emu_exec_name(enum refnic_emu_exec exec);
int refnic_emu_fault_admin_timeout_format(const struct refnic_emu_faults *f, char *buf,
					  size_t len);
int refnic_emu_fault_corrupt_format(const struct refnic_emu_faults *f, char *buf, size_t len);

/* Inline execution models a device emulated in the trapped store; a bus
 * device's asynchronous fetch needs an engine thread. */
static inline bool
refnic_profile_allows_inline(const struct refnic_profile *p)
{
	return p->trap_and_emulate;
}

/*
 * A queue's doorbell as the device took it: the device works from this tail,
 * never from the TAIL register itself (with REFNIC_ERRATA_MISSED_DOORBELL
 * the two differ). The take counter sits above the tail in one word, so a
 * re-ring that read TAIL before a newer write was taken cannot install the
 * older value (refnic_emu_trap.c). One line per queue: each has its writer.
 */
struct refnic_emu_db {
	uint64_t taken;			/* takes << 32 | tail */
	uint32_t writes;		/* TAIL writes, for fault_doorbell_drop */
} __rte_cache_aligned;

static inline uint32_t
emu_db_tail(const struct refnic_emu_db *db)
{
	return (uint32_t)__atomic_load_n(&db->taken, __ATOMIC_ACQUIRE);
}

/* A push line as it reached the device (the write's payload), until the
 * queue's work sends it; refnic_emu_push.c. */
#define REFNIC_EMU_PUSH_FIFO		4
struct refnic_emu_push {
	uint16_t start;			/* ring index of its first descriptor */
	uint16_t len;			/* bytes stored */
	uint8_t line[REFNIC_PUSH_LINE_SIZE] __rte_aligned(8);
};

struct refnic_emu_txq {
	/* First, and never cleared with the rest: whoever runs the queue's
	 * work (an engine, or a trap inline) holds it. */
	rte_spinlock_t lock;
	bool enabled;
	uint16_t size;			/* entries, power of two */
	uint16_t head;			/* next descriptor to fetch */
	uint16_t cq_tail;		/* next completion slot */
	uint8_t cq_phase;
	uint32_t db_seen;		/* link write_count at last look */
	uint32_t rering_seen;		/* the same for REFNIC_Q_RERING */
	uint64_t fetch_ready_tsc;	/* descriptors visible after this */
	bool fetch_pending;
	struct refnic_tx_desc *ring;
	struct refnic_tx_cpl *cq;
	bool intr;			/* REFNIC_QCREATE_INTR: may be armed */
	uint16_t vector;
	uint16_t arm_head;		/* head when the cause was last armed */
	uint32_t push_prod, push_cons;	/* push[] entries, under lock */
	struct refnic_emu_push push[REFNIC_EMU_PUSH_FIFO];
};

struct refnic_emu_rxq {
	/* First, and never cleared with the rest: taken while frames are
	 * delivered, when more than one thread may deliver to this queue. */
	rte_spinlock_t lock;
	bool enabled;
	uint16_t size;
	uint16_t head;			/* next posted buffer to fill */
	uint16_t buf_size;
	uint8_t cq_phase;		/* phase of the entry at head */
	uint16_t pub;			/* first completion not yet published */
	uint8_t pub_phase;
	uint32_t db_seen;
	uint64_t ring_iova, cq_iova;	/* as created: an shm port publishes them */
	struct refnic_rx_desc *ring;
	struct refnic_rx_cpl *cq;	/* slot i completes descriptor i */
	bool intr;			/* REFNIC_QCREATE_INTR: may be armed */
	uint16_t vector;
	uint64_t *stamps;		/* REFNIC_QCREATE_RX_TSTAMP: after cq; or NULL */
};

struct refnic_emu_admin {
	bool configured;		/* rings latched from the registers */
	bool busy;			/* cmd fetched, completes at due_tsc */
	uint16_t depth;
	uint16_t head;
	uint8_t cq_phase;
	uint32_t db_seen;
	uint64_t due_tsc;
	struct refnic_admin_cmd *sq;
	struct refnic_admin_cpl *cq;
	struct refnic_admin_cmd cmd;	/* the command being executed */
};

struct refnic_cable;

struct refnic_emu_aeq {
	rte_spinlock_t lock;		/* engine and trapping threads post events */
	bool enabled;
	uint16_t depth;
	uint16_t tail;			/* next entry to write */
	uint8_t phase;
	uint32_t ctrl_seen;		/* AEQ_CTRL writes seen */
	struct refnic_event *ring;
};

/* Host memory the device may reach: DPDK memseg lists, and recent IOVA pages. */
#define REFNIC_DMA_MAX_RANGES		32
#define REFNIC_DMA_PAGE_CACHE		64
struct refnic_dma_cache {
	bool iova_is_va;
	uint16_t nb_ranges;
	struct { uintptr_t start, end; } range[REFNIC_DMA_MAX_RANGES];
	struct { uint64_t iova; uintptr_t va; uint64_t len; } page[REFNIC_DMA_PAGE_CACHE];
};

/*
 * A thread's own of a device, beside its counter shard (refnic_emu_intr.h):
 * the DMA translation cache, and for engines what they last saw.
 */
struct refnic_emu_shard {
	struct refnic_dma_cache dma;
	uint32_t write_seq_seen;	/* link write_seq at this engine's last pass */
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
	/* The last line stored to a TX queue not created: the push self-test. */
	struct {
		rte_spinlock_t lock;
		uint16_t qid;
		uint16_t len;
		uint32_t xfers;		/* transactions it arrived in */
		bool whole;		/* every burst in one piece */
		uint8_t line[REFNIC_PUSH_LINE_SIZE] __rte_aligned(8);
	} push_probe;

	uint8_t *bar0;			/* in bar_mz, which other processes map */
	const struct rte_memzone *bar_mz;
	/* In bar_mz too; an shm view maps its far end's (or has none). */
	struct refnic_emu_clock *clock;
	bool remote_attached;		/* a secondary process stores: drain them */
	uint64_t remote_stores;		/* a secondary's stores engine 0 replayed */
	/* Secondaries' doorbells run inline, one thread at a time (their
	 * shard is REFNIC_EMU_REMOTE_SHARD), and how many did. */
	rte_spinlock_t remote_lock;
	uint64_t remote_inline;
	struct refnic_emu_link *link;
	uint16_t nb_vectors;
	int vector_fd[REFNIC_MAX_VECTORS];
	/* Queue vectors: intr_own, or the cable's file for an shm port, whose
	 * far end raises them too (then intr_cable, whose locks they take). */
	struct refnic_emu_intr *intr;
	struct refnic_cable *intr_cable;
	uint64_t fatal_at_tsc;		/* fault_fatal: when; 0: not (any more) */
	uint64_t corrupt_seq;		/* fault_corrupt: candidate writes seen */
	uint64_t corrupted;		/* ... and garbled */
	uint32_t reply_garbled[REFNIC_ADMIN_OPCODE_MAX]; /* per command: its variants rotate */
	refnic_emu_tamper_t tamper;	/* a fuzzer's, see refnic_emu_set_tamper() */
	void *tamper_ctx;

	enum refnic_hw_state state;	/* emu_state(): read by every thread */
	/*
	 * What receiving looks at (MTU, filters, features, RSS, flows): read
	 * by senders' passes, which hold it read-locked from their first frame
	 * into this device to the pass's end; written under the write lock
	 * (admin commands, resets), as a NIC applies a change between frames.
	 */
	rte_rwlock_t rx_config_lock;
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
	struct refnic_emu_flows flows;	/* REFNIC_CAP_FLOW */
	bool link_up;			/* as last reported */
	bool phy_down;			/* LINK_SET 0: no link, whatever the cable */
	struct refnic_emu_aeq aeq;
	struct refnic_emu_faults faults;
	uint32_t admin_fetched;		/* commands fetched since reset */
	bool dataplane_paused;		/* lab: queues not serviced */

	struct refnic_cable *cable;
	/* An shm port: its receive side is published in the cable's file,
	 * and the far end's process delivers into it. */
	bool rx_published;
	/* This is not a device but the receive side of the far end of
	 * view_cable, as this process delivers into it (refnic_emu_cable_shm_port.c). */
	struct refnic_cable *view_cable;
	/* Counters, one shard per thread: stats_own, or for a view the far
	 * end's file, where its device reads them. */
	struct refnic_hw_stats *stats;
	struct refnic_emu_shard shard[REFNIC_EMU_SHARDS];
	struct refnic_emu_intr intr_own;
	struct refnic_hw_stats stats_own[REFNIC_EMU_SHARDS] __rte_cache_aligned;
};

/*
 * The engine thread running this code: 0 for the first engine and for
 * control threads, which hold every engine's lock.
 */
extern __thread unsigned int refnic_engine_id
	__attribute__((tls_model("initial-exec")));
/*
 * The shard this thread counts into: its engine's, its trap slot's, or 0
 * for control threads (they hold every engine's lock). Read per frame: the
 * initial-exec model makes it one load, not a call.
 */
extern __thread unsigned int refnic_shard_id
	__attribute__((tls_model("initial-exec")));

/* This thread is an engine: its shard is its own, engine 0's (0) included. */
extern __thread bool refnic_on_engine __attribute__((tls_model("initial-exec")));

static inline struct refnic_emu_shard *
emu_shard(struct refnic_emu *emu)
{
	return &emu->shard[refnic_shard_id];
}

static inline struct refnic_hw_stats *
emu_stats(struct refnic_emu *emu)
{
	return &emu->stats[refnic_shard_id];
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
void refnic_emu_queues_reset(struct refnic_emu *emu);

/* refnic_emu_admin.c */
void refnic_emu_fatal(struct refnic_emu *emu, uint32_t code);
unsigned int refnic_emu_admin_service(struct refnic_emu *emu, uint64_t now,
				      uint64_t *next_due_tsc);

/* refnic_emu_queue.c */
int refnic_emu_queue_create(struct refnic_emu *emu,
			    const struct refnic_admin_queue_create *qc);
int refnic_emu_queue_destroy(struct refnic_emu *emu, uint8_t type, uint16_t qid);
unsigned int refnic_emu_tx_service(struct refnic_emu *emu, uint16_t qid,
				   uint64_t now, uint64_t *next_due_tsc);
/* A TX doorbell's work on the trapping thread (exec=inline): takes the queue's lock. */
void refnic_emu_tx_run(struct refnic_emu *emu, uint16_t qid);
/* Every queue of the device held: nobody runs its queue work meanwhile. */
void refnic_emu_queues_lock(struct refnic_emu *emu);
/* Its halves: every device's TX half before any RX half (refnic_emu_lock()). */
void refnic_emu_queues_lock_tx(struct refnic_emu *emu);
void refnic_emu_queues_lock_rx(struct refnic_emu *emu);
void refnic_emu_queues_unlock(struct refnic_emu *emu);

/* refnic_emu_push.c: the push window. */
struct refnic_frame;
/* The trap of a line store: val bytes stored at off, then a fence. */
void refnic_emu_push_write(struct refnic_emu *emu, uint32_t off, uint32_t val);
/* The push line for descriptor idx, if one came (stale ones dropped); queue locked. */
const struct refnic_emu_push *refnic_emu_push_front(struct refnic_emu_txq *txq, uint16_t idx,
						    uint16_t tail);
void refnic_emu_push_pop(struct refnic_emu_txq *txq);
/* Gather a pushed packet into f; *next: the descriptor after it. */
void refnic_emu_push_gather(struct refnic_emu *emu, const struct refnic_emu_push *p,
			    struct refnic_frame *f, uint16_t *next, uint16_t mask,
			    bool *malformed);
uint16_t refnic_emu_admin_push_check(struct refnic_emu *emu, uint32_t qid, uint32_t *result);
uint16_t refnic_emu_admin_dma_to_host(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd,
				      const void *data, uint32_t len);

/* refnic_emu_trap.c: the emulated BAR's write trap (a refnic_emu_trap_t). */
void refnic_emu_bar_write(void *ctx, uint32_t off, uint32_t val);
/* The same for a store another process made, and paid for there. */
void refnic_emu_bar_replay(struct refnic_emu *emu, uint32_t off, uint32_t val);

/* The modelled cost of a BAR store, on the writer's CPU as a real BAR's. */
static inline void
refnic_emu_store_charge(uint64_t cycles)
{
	uint64_t end = rte_get_tsc_cycles() + cycles;

	while (rte_get_tsc_cycles() < end)
		rte_pause();
}
/* TX work of queue qid, inline on this thread, as if its doorbell rang. */
void refnic_emu_trap_tx(struct refnic_emu *emu, uint16_t qid);
void refnic_emu_rx_count_doorbells(struct refnic_emu *emu, uint16_t qid);
uint64_t refnic_emu_rx_uncounted(const struct refnic_emu *emu, uint16_t qid);
void refnic_emu_rx_doorbells_forget(struct refnic_emu *emu);
/* The device sets a TAIL register to 0 itself (queue create, reset). */
void refnic_emu_db_reset(struct refnic_emu_db *db);
void refnic_emu_db_take(struct refnic_emu_db *db, uint32_t tail);
/* REFNIC_REG_ERRATA as this device has it: its revision's, and the fault's. */
uint32_t refnic_emu_errata(const struct refnic_emu *emu);
void refnic_emu_queues_publish_heads(struct refnic_emu *emu, uint16_t qid);

/*
 * Frames delivered in a batch: the RX queue they land on stays locked from
 * one frame to the next, and its completions are published (phase bits)
 * when the batch moves to another queue or ends. One lock and one publish
 * per batch, not per frame: the lock alone was half the per-frame cost.
 */
struct refnic_rx_batch {
	struct refnic_emu_rxq *held;	/* locked, completions not yet published */
	struct refnic_emu *emu;		/* held's device */
	struct refnic_emu *config;	/* its rx_config_lock read-locked */
	/* An shm cable's view of the far end's port, which this pass
	 * delivers into (it counts in the end's delivering word). */
	struct refnic_emu *view;
};
void refnic_emu_rx_batch_end(struct refnic_rx_batch *b);

/* A frame in flight between two devices: the segments of a TX packet. */
struct refnic_frame {
	uint16_t nb_segs;
	uint32_t len;
	uint16_t offload;		/* REFNIC_TXD_* of the first descriptor */
	uint16_t vlan_tci;
	uint16_t hdr_lens;
	uint16_t mss;			/* TSO: from the context descriptor */
	uint8_t l4_len;
	/* One spare: stripping a VLAN tag can split a segment in two. */
	const uint8_t *seg[REFNIC_MAX_TSO_SEGS + 1];
	uint16_t seg_len[REFNIC_MAX_TSO_SEGS + 1];
};
_Static_assert(REFNIC_MAX_TSO_SEGS >= REFNIC_MAX_TX_SEGS, "a frame holds any packet");

#define REFNIC_TXD_OFFLOADS	(REFNIC_TXD_IP_CSUM | REFNIC_TXD_L4_CSUM_TCP | \
				 REFNIC_TXD_L4_CSUM_UDP | REFNIC_TXD_VLAN_INSERT | \
				 REFNIC_TXD_TSO)

/* refnic_emu_offload.c: what the device does to frames on the way. */
/* Apply a TX frame's offloads; f then points at the device's own copy. */
bool refnic_emu_tx_offload(struct refnic_frame *f);
/* The thread's TX scratch frame (REFNIC_MAX_FRAME_LEN + 4 bytes); NULL
 * if it could not be had. */
uint8_t *refnic_emu_tx_scratch(void);
/* TCP/UDP checksum of [l4, end) of a linear frame, with its pseudo-header. */
uint16_t refnic_emu_l4_csum(const uint8_t *frame, uint32_t l3, uint32_t l4, uint32_t end,
			    uint8_t proto);
/* REFNIC_RXC_*_CSUM_* flags for a received frame whose headers were parsed. */
uint16_t refnic_emu_rx_csum(const struct refnic_frame *f, const struct refnic_pkt_hdrs *h);
/* Strip a frame's VLAN tag into out; false if it has none. */
bool refnic_emu_vlan_strip(const struct refnic_frame *f, struct refnic_frame *out,
			   uint16_t *tci);

/*
 * refnic_emu_tso.c: TCP segmentation (REFNIC_TXD_TSO). start() checks the
 * packet and takes its headers; each next() builds the following frame in
 * the thread's TX scratch, which holds it until the next call.
 */
#define REFNIC_EMU_TSO_HDR_MAX	(REFNIC_TXD_L2_LEN_MASK + 4 + \
				 (UINT16_MAX >> REFNIC_TXD_L3_LEN_SHIFT) + 60)
struct refnic_emu_tso {
	const struct refnic_frame *f;
	uint8_t hdr[REFNIC_EMU_TSO_HDR_MAX];	/* VLAN tag inserted if asked */
	uint32_t hdr_len;			/* of hdr */
	uint32_t l3, l4;			/* offsets in hdr */
	uint32_t payload;			/* bytes to cut */
	uint32_t off;				/* of them, sent */
	uint16_t seg, seg_off;			/* where the next payload byte is */
	uint16_t index, nb_frames;
	uint32_t seq;
	uint16_t ip_id;
	uint8_t tcp_flags;
	bool ipv4;
};
bool refnic_emu_tso_start(struct refnic_emu_tso *t, const struct refnic_frame *f);
bool refnic_emu_tso_next(struct refnic_emu_tso *t, struct refnic_frame *out);

/* Receive a frame on emu's port; false if dropped (counted by the device). */
bool refnic_emu_rx_frame(struct refnic_emu *emu, const struct refnic_frame *f,
			 struct refnic_rx_batch *b);

/* refnic_emu_events.c: async events and interrupt vectors. */
unsigned int refnic_emu_aeq_service(struct refnic_emu *emu);
/* splitmix64's finaliser: consecutive counts to scattered values, the same
 * every run (which writes fault_doorbell_drop and fault_corrupt hit). */
static inline uint64_t
refnic_emu_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* refnic_emu_corrupt.c: fault_corrupt, just before the phase bit goes out. */
/* Inline, for the per-completion paths: may anything garble at all? */
static inline bool
emu_may_garble(const struct refnic_emu *emu)
{
	return emu->faults.corrupt_what != 0 ||
	       __atomic_load_n(&emu->tamper, __ATOMIC_RELAXED) != NULL;
}
void refnic_emu_corrupt_rx_cpl(struct refnic_emu *emu, struct refnic_rx_cpl *cpl, uint16_t size);
void refnic_emu_corrupt_tx_cpl(struct refnic_emu *emu, struct refnic_tx_cpl *cpl, uint16_t size);
void refnic_emu_corrupt_admin_cpl(struct refnic_emu *emu, struct refnic_admin_cpl *cpl);
void refnic_emu_corrupt_event(struct refnic_emu *emu, struct refnic_event *ev);
/* A reply buffer (IDENTIFY, STATS_GET, RSS_GET, FW_VERSION), as it is DMA-written. */
void refnic_emu_corrupt_reply(struct refnic_emu *emu, uint8_t opcode, void *data, uint32_t len);

/* Descriptors per TX packet this device takes (max_tx_segs=; 0: the contract's). */
static inline uint16_t
refnic_emu_max_tx_segs(const struct refnic_emu *emu)
{
	return emu->params.max_tx_segs != 0 ? emu->params.max_tx_segs : REFNIC_MAX_TX_SEGS;
}
/* Stop a queue on the device's own error (status, event); every device lock held. */
void refnic_emu_queue_fail(struct refnic_emu *emu, bool tx, uint16_t qid, const char *what);
void refnic_emu_post_event(struct refnic_emu *emu, uint16_t type, uint32_t data);
void refnic_emu_raise_vector(struct refnic_emu *emu, uint16_t vector);

/* refnic_emu_intr.c: queue interrupts and moderation. */
/* A write to a queue's CQ_HEAD: arm or disarm its cause. */
void refnic_emu_intr_arm(struct refnic_emu *emu, bool tx, uint16_t qid, uint32_t val);
/* Completions published on a queue whose cause may be armed; queue locked. */
void refnic_emu_intr_fire(struct refnic_emu *emu, uint16_t v, uint8_t cause, bool full);
bool refnic_emu_rxq_full(struct refnic_emu *emu, uint16_t qid);
/* Raise the vectors this thread fired; with no device lock held. */
void refnic_emu_intr_flush_deferred(void);
void refnic_emu_intr_queue_reset(struct refnic_emu *emu, uint16_t v, bool tx);
void refnic_emu_intr_reset(struct refnic_emu *emu);
unsigned int refnic_emu_intr_service(struct refnic_emu *emu, uint64_t now,
				     uint64_t *next_due_tsc);
void refnic_emu_intr_stats_add(const struct refnic_emu *emu, struct refnic_hw_stats *sum);

/* refnic_emu_filter.c: what the port accepts, and the admin commands that say so. */
bool refnic_emu_rx_accept(struct refnic_emu *emu, const uint8_t *hdr, uint32_t hdr_len);
uint16_t refnic_emu_admin_filter(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd);
void refnic_emu_filters_reset(struct refnic_emu *emu);

/* refnic_emu_rss.c */
#define REFNIC_EMU_RSS_HASH_ALL	(REFNIC_RSS_HASH_IPV4 | REFNIC_RSS_HASH_TCP_IPV4 | \
				 REFNIC_RSS_HASH_UDP_IPV4 | REFNIC_RSS_HASH_IPV6 | \
				 REFNIC_RSS_HASH_TCP_IPV6 | REFNIC_RSS_HASH_UDP_IPV6)
/* Toeplitz hash of a frame over types with key; false if they do not hash it. */
bool refnic_emu_rss_hash(uint32_t types, const uint8_t *key, const uint8_t *p,
			 const struct refnic_pkt_hdrs *h, uint32_t *hash);
/* RX queue for a frame, and its hash if RSS applies (*hashed). */
uint16_t refnic_emu_rss_queue(const struct refnic_emu *emu, const uint8_t *p,
			      const struct refnic_pkt_hdrs *h, uint32_t *hash, bool *hashed);
uint16_t refnic_emu_admin_rss(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd);

/* refnic_emu_flow.c: the flow table (REFNIC_CAP_FLOW). */
/* What the table decided for a frame. */
enum refnic_emu_flow_fate {
	REFNIC_EMU_FLOW_DEFAULT,	/* the port's RSS decides */
	REFNIC_EMU_FLOW_QUEUE,		/* to queue (hash with hashed) */
	REFNIC_EMU_FLOW_DROP,
};
struct refnic_emu_flow_verdict {
	uint16_t queue;
	bool hashed;
	bool marked;
	uint32_t hash;
	uint32_t mark;
};
/* The hot path's one test: is any rule in the table? */
static inline bool
refnic_emu_flows_any(const struct refnic_emu *emu)
{
	return __atomic_load_n(&emu->flows.nb, __ATOMIC_RELAXED) != 0;
}
enum refnic_emu_flow_fate refnic_emu_flow_lookup(struct refnic_emu *emu, const uint8_t *p,
						 const struct refnic_pkt_hdrs *h,
						 uint32_t frame_len,
						 struct refnic_emu_flow_verdict *v);
uint16_t refnic_emu_admin_flow(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd);
void refnic_emu_flows_reset(struct refnic_emu *emu);

/*
 * refnic_emu_clock.c: the device clock and the PTP latches (1.4). In the
 * BAR's memzone (refnic_emu_remote.c), which secondaries map: their traps
 * latch the clock themselves.
 */
struct refnic_emu_clock {
	uint32_t seq;			/* odd while base_* change */
	uint64_t base_host;		/* the clock read base_ns at this host ns */
	int64_t base_ns;
	uint64_t mult;			/* device ns per host ns, 32.32 fixed point */
	rte_spinlock_t latch_lock;	/* a latch's registers, written whole */
	bool timesync;			/* REFNIC_ADMIN_TIMESYNC_CTRL */
};
void refnic_emu_clock_init(struct refnic_emu_clock *c, int32_t skew_ppb);
void refnic_emu_clock_reset(struct refnic_emu_clock *c);
int64_t refnic_emu_clock_now(const struct refnic_emu_clock *c);
/* A store into [REFNIC_REG_CLOCK_BASE, REFNIC_REG_CLOCK_END), trapped. */
void refnic_emu_clock_store(struct refnic_emu_clock *c, uint8_t *bar0, uint32_t off);
void refnic_emu_ptp_latch(struct refnic_emu_clock *c, uint8_t *bar0, bool tx, uint64_t ns);
bool refnic_emu_ptp_classify(const uint8_t *p, uint32_t len, bool *event);
uint16_t refnic_emu_admin_clock(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd);
/* Timesync on (PTP frames flagged and latched)? */
static inline bool
emu_timesync(const struct refnic_emu *emu)
{
	return emu->clock != NULL && __atomic_load_n(&emu->clock->timesync, __ATOMIC_RELAXED);
}

/* refnic_emu_dma.c: the device's view of host memory. */
void refnic_dma_init(struct refnic_emu *emu);
/* Host address of [iova, iova + len), or NULL (counted as a DMA error). */
void *refnic_dma_map_slow(struct refnic_emu *emu, uint64_t iova, uint64_t len);

/* A translation the cache holds, or NULL: no look-up, nothing counted. */
static inline void *
refnic_dma_map_cached(struct refnic_emu *emu, uint64_t iova, uint64_t len)
{
	struct refnic_dma_cache *dma = &emu_shard(emu)->dma;
	unsigned int slot = (iova >> 21) % REFNIC_DMA_PAGE_CACHE;
	uint64_t off = iova - dma->page[slot].iova;

	if (likely(len != 0 && iova >= dma->page[slot].iova &&
		   len <= dma->page[slot].len && off <= dma->page[slot].len - len))
		return (void *)(uintptr_t)(dma->page[slot].va + off);
	return NULL;
}

/* Per descriptor: a page translated and checked before costs one compare. */
static inline void *
refnic_dma_map(struct refnic_emu *emu, uint64_t iova, uint64_t len)
{
	void *va = refnic_dma_map_cached(emu, iova, len);

	return likely(va != NULL) ? va : refnic_dma_map_slow(emu, iova, len);
}

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
void refnic_cable_tx_flush(struct refnic_emu *emu, struct refnic_rx_batch *b);
/* Bring in frames from outside the process; returns work done. */
unsigned int refnic_cable_rx_service(struct refnic_emu *emu, uint64_t now);
void refnic_cable_set_plugged(struct refnic_emu *emu, bool plugged);
/* Engine sleep: fd to wait on (-1: none), -EAGAIN if frames wait; then end. */
int refnic_cable_doze_prepare(struct refnic_emu *emu);
void refnic_cable_doze_end(struct refnic_emu *emu);

/* refnic_emu_remote.c: the BAR as a memzone, and stores other processes
 * made into it, replayed by engine 0. */
int refnic_emu_bar_alloc(struct refnic_emu *emu);
void refnic_emu_bar_free(struct refnic_emu *emu);
void refnic_emu_remote_listen(void);
/* Where the clock lies from the BAR's start, in every process's memzone
 * (an shm cable's far end delivers with the receiving port's clock). */
size_t refnic_emu_bar_clock_offset(void);
unsigned int refnic_emu_remote_drain(struct refnic_emu *emu);
void refnic_emu_remote_dozing(struct refnic_emu *emu, bool dozing);
bool refnic_emu_remote_pending(const struct refnic_emu *emu);
void refnic_emu_remote_counts(const struct refnic_emu *emu, uint64_t *stores,
			      uint64_t *kicks);
/* In a secondary process, whose device work runs on the primary's device
 * state but whose fds are its own: engine 0 raises vector v; engine 0 is
 * kicked. */
void refnic_emu_remote_raise(struct refnic_emu *emu, uint16_t v);
void refnic_emu_remote_kick(void);

/* refnic_emu_engine.c: the engine threads, started with the first device that
 * needs them, stopped with the last device. */
int refnic_engine_get(unsigned int nb_engines);
void refnic_engine_put(void);
extern TAILQ_HEAD(refnic_emu_list, refnic_emu) refnic_emu_devices;
/* Control threads: every engine's lock. */
void refnic_emu_lock(void);
void refnic_emu_unlock(void);
/* Readers (telemetry): the device list and what control threads set stay
 * put, the data path runs on. */
void refnic_emu_list_lock(void);
void refnic_emu_list_unlock(void);
/* Engine threads running, and whether they share CPUs with lcores; under
 * the list lock. */
unsigned int refnic_engine_running(bool *share_cpu);
/* Engine k's thread name, as ps and top show it. */
void refnic_engine_name(unsigned int k, char *buf, size_t len);
/* The first engine, changing what the others read: their locks too, and
 * the device's queues (trap threads run their work too). */
void refnic_engine_lock_others(struct refnic_emu *emu);
void refnic_engine_unlock_others(struct refnic_emu *emu);
/* A new device's link: the engines' kick fds; then kick them all. */
void refnic_engine_link_init(struct refnic_emu *emu);
void refnic_engine_kick_all(void);

#endif /* _REFNIC_EMU_PRIV_H_ */
