/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_RXTX_H_
#define _REFNIC_RXTX_H_

#include <ethdev_driver.h>
#include <rte_mbuf.h>
#include <rte_memzone.h>

#include "refnic_bar.h"
#include "refnic_compat.h"

/*
 * This process's register access to each refnic port, for the bursts. The
 * queues are shared memory, and a secondary process's stores take a path
 * of their own to the device, so the handle cannot live in them: it lives
 * in the PMD's own memory, which every process has a copy of (a small,
 * hot table rather than rte_eth_devices[], which the fast path never
 * touches otherwise).
 */
extern struct refnic_bar *refnic_port_bar[RTE_MAX_ETHPORTS];

static inline struct refnic_bar *
refnic_queue_bar(uint16_t port_id)
{
	return refnic_port_bar[port_id];
}

/* A flow rule's mark (refnic_flow.c), which the device reports in place of
 * the RSS hash (REFNIC_RXC_FLOW_MARK), as flow director marks go to mbufs. */
static inline void
refnic_rx_flow_mark(const struct refnic_rx_cpl *cpl, uint16_t flags, struct rte_mbuf *m)
{
	if (flags & REFNIC_RXC_FLOW_MARK) {
		m->hash.fdir.hi = cpl->rss_hash;
		m->ol_flags |= RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID;
	}
}

/*
 * A burst's way into a queue and out. While in_burst is set the queue is
 * the lcore's; a recovery (bursts_quiesce()) sets held, has every thread's
 * stores seen (membarrier: nothing is added to this path) and waits for
 * in_burst to clear, after which no burst is inside and none gets in.
 * Also for a secondary's lcores: the barrier is system-wide.
 */
static __rte_always_inline bool
refnic_burst_enter(uint32_t *in_burst, const bool *started, const bool *broken,
		   const bool *held)
{
	__atomic_store_n(in_burst, 1, __ATOMIC_RELAXED);
	rte_compiler_barrier();
	/* Acquire: a recovery's writes to the queue come before its release
	 * of held (a plain load on x86). */
	if (likely(__atomic_load_n(started, __ATOMIC_ACQUIRE) &&
		   !__atomic_load_n(broken, __ATOMIC_ACQUIRE) &&
		   !__atomic_load_n(held, __ATOMIC_ACQUIRE)))
		return true;
	__atomic_store_n(in_burst, 0, __ATOMIC_RELEASE);
	return false;
}

static __rte_always_inline void
refnic_burst_leave(uint32_t *in_burst)
{
	__atomic_store_n(in_burst, 0, __ATOMIC_RELEASE);
}

/*
 * Per-queue counters: each written by one thread alone, read by control
 * threads (stats, xstats, the doorbell check) at any time. All but
 * ring_discards are the queue's lcore's; ring_discards is written by the
 * control thread that frees the ring, with the lcore kept out of it. The
 * updates are relaxed atomic stores of a plain sum (a plain mov on x86):
 * a reader sees each counter whole, and no read-modify-write is locked.
 */
#define REFNIC_STAT_ADD(counter, n) \
	__atomic_store_n(&(counter), (counter) + (n), __ATOMIC_RELAXED)

struct refnic_queue_stats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t errors;		/* TX: dropped bad packets; RX: bad completions */
	uint64_t nombuf;		/* RX: refill allocation failures */
	uint64_t push;			/* TX: packets pushed (push window); the
					 * rest of packets the device fetched */
	uint64_t tso;			/* TX: TSO packets posted */
	uint64_t tso_segs;		/* TX: the frames the device cuts them into */
	uint64_t ring_discards;		/* frames freed from the ring undelivered:
					 * RX: completed, not yet received; TX:
					 * taken, not sent (refnic_queue.c) */
};

/*
 * The counters as a control thread reports them: each read whole, less
 * base, which a reset moves to the current values (the counters themselves
 * are the lcore's alone: a reset that wrote them would race its sums).
 */
static inline void
refnic_queue_stats_read(const struct refnic_queue_stats *cur,
			const struct refnic_queue_stats *base, struct refnic_queue_stats *out)
{
	const uint64_t *c = (const uint64_t *)cur, *b = (const uint64_t *)base;
	uint64_t *o = (uint64_t *)out;
	unsigned int i;

	/* Two control threads may read and reset at once: base whole too. */
	for (i = 0; i < sizeof(*out) / sizeof(*o); i++)
		__atomic_store_n(&o[i], __atomic_load_n(&c[i], __ATOMIC_RELAXED) -
			 (b != NULL ? __atomic_load_n(&b[i], __ATOMIC_RELAXED) : 0),
			 __ATOMIC_RELAXED);
}

struct refnic_rx_queue {
	struct refnic_rx_desc *ring;
	struct refnic_rx_cpl *cq;
	struct rte_mbuf **sw_ring;	/* mbuf posted at each descriptor */
	uint32_t tail_reg;
	uint16_t size;
	uint16_t mask;
	uint16_t next;			/* next completion / descriptor to read */
	uint16_t tail;			/* next descriptor to post */
	uint16_t free_thresh;		/* refill once this many slots are free */
	uint16_t buf_size;
	uint32_t buf_offset;		/* data's offset from the mbuf, where its
					 * IOVA is its address; else 0 */
	uint8_t phase;			/* expected completion phase */
	uint8_t lap_flip;		/* phase's change at each wrap: REFNIC_PHASE_BIT
					 * (completion ring), 0 (written back: DD) */
	bool broken;			/* device wrote garbage; stop reading */
	bool started;			/* created on the device */
	bool deferred_start;		/* not started with the port */
	bool scatter;			/* frames may span buffers: asked, or the MTU needs it */
	uint32_t in_burst;		/* an lcore is in a burst (refnic_burst_enter) */
	bool held;			/* bursts kept out: a recovery is under way */
	uint32_t starts;		/* times started: the doorbell check sees restarts */
	struct rte_mbuf *pkt_first;	/* frame being assembled across bursts */
	struct rte_mbuf *pkt_last;
	struct rte_mempool *mp;
	uint64_t mbuf_initializer;	/* rearm_data of a received mbuf */
	struct refnic_queue_stats stats;
	/* Control threads': the counters at the last stats reset, less what
	 * earlier queues of this id counted since (refnic_stats.c). */
	struct refnic_queue_stats stats_base;
	uint16_t qid;
	uint16_t port_id;
	uint64_t offloads;
	uint32_t ptype_mask;		/* packet type layers reported (set_ptypes) */
	/* RTE_ETH_RX_OFFLOAD_TIMESTAMP: a stamp per completion, after cq
	 * (REFNIC_QCREATE_RX_TSTAMP), and where the mbuf takes it. */
	uint64_t *stamps;
	int ts_offset;			/* the timestamp dynfield */
	uint64_t ts_flag;		/* the timestamp dynflag */
	const struct rte_memzone *mz;	/* ring + cq (+ stamps) */
	/* ol_flags by completion flags (REFNIC_RX_OL_INDEX), for the vector burst */
	uint64_t ol_flags_tbl[64] __rte_cache_aligned;
} __rte_cache_aligned;

/* The completion flags the vector burst turns into ol_flags by lookup. */
#define REFNIC_RX_OL_SHIFT		1
#define REFNIC_RX_OL_INDEX(flags)	(((flags) >> REFNIC_RX_OL_SHIFT) & 0x3f)

struct refnic_tx_queue {
	struct refnic_tx_desc *ring;
	struct refnic_tx_cpl *cq;
	struct rte_mbuf **sw_ring;	/* segment sent at each descriptor */
	uint32_t tail_reg;
	uint16_t size;
	uint16_t mask;
	uint16_t tail;			/* next descriptor to fill */
	uint16_t clean;			/* oldest descriptor not yet freed */
	uint16_t nb_free;		/* descriptors free to fill */
	uint16_t free_thresh;		/* reclaim when fewer are free */
	uint16_t max_segs;		/* descriptors per packet, as the device says */
	uint16_t tso_max_segs;		/* data descriptors per TSO packet */
	uint32_t tso_max_size;		/* bytes per TSO packet */
	uint64_t tx_ol_ok;		/* mbuf TX offload flags the device carries out */
	uint32_t push_reg;		/* REFNIC_PUSH_LINE(qid) */
	uint16_t cq_head;
	uint16_t hw_head;		/* device is done before this; from completions */
	uint8_t phase;
	bool broken;
	bool started;
	bool deferred_start;
	uint32_t in_burst;		/* an lcore is in a burst (refnic_burst_enter) */
	bool held;			/* bursts kept out: a recovery is under way */
	uint32_t starts;		/* times started: the doorbell check sees restarts */
	struct refnic_queue_stats stats;
	struct refnic_queue_stats stats_base;	/* as refnic_rx_queue's */
	uint16_t qid;
	uint16_t port_id;
	uint64_t offloads;
	uint16_t slow_free_left;	/* descriptors to free one by one before the
					 * vector burst frees in bulk again: chains
					 * may be among them */
	struct rte_mempool *fast_pool;	/* fast free's one pool, learnt at its first */
	const struct rte_memzone *mz;
} __rte_cache_aligned;

int refnic_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
			  unsigned int socket_id, const struct rte_eth_rxconf *conf,
			  struct rte_mempool *mp);
int refnic_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
			  unsigned int socket_id, const struct rte_eth_txconf *conf);
void refnic_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid);
void refnic_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid);

/* Bring queues up on the device (admin QUEUE_CREATE, RX buffers posted). */
int refnic_rx_queue_hw_start(struct rte_eth_dev *dev, struct refnic_rx_queue *rxq);
int refnic_tx_queue_hw_start(struct rte_eth_dev *dev, struct refnic_tx_queue *txq);
/* Take them down on the device (admin QUEUE_DESTROY). */
int refnic_rx_queue_hw_stop(struct rte_eth_dev *dev, struct refnic_rx_queue *rxq);
int refnic_tx_queue_hw_stop(struct rte_eth_dev *dev, struct refnic_tx_queue *txq);
/* Give every mbuf back, once the device no longer touches the queue. */
void refnic_rx_queue_free_mbufs(struct refnic_rx_queue *rxq);
void refnic_tx_queue_free_mbufs(struct refnic_tx_queue *txq);

int refnic_rx_queue_start(struct rte_eth_dev *dev, uint16_t qid);
int refnic_rx_queue_stop(struct rte_eth_dev *dev, uint16_t qid);
int refnic_tx_queue_start(struct rte_eth_dev *dev, uint16_t qid);
int refnic_tx_queue_stop(struct rte_eth_dev *dev, uint16_t qid);
void refnic_rxq_info_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_rxq_info *qinfo);
void refnic_txq_info_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_txq_info *qinfo);

/* Descriptor state, for rte_eth_rx/tx_descriptor_status() and rx_queue_count. */
int refnic_rx_descriptor_status(void *rxq, uint16_t offset);
int refnic_tx_descriptor_status(void *txq, uint16_t offset);
REFNIC_RX_QUEUE_COUNT_RET refnic_rx_queue_count(void *rxq);
int refnic_get_monitor_addr(void *rxq, struct rte_power_monitor_cond *pmc);
int refnic_tx_done_cleanup(void *txq, uint32_t free_cnt);

/* The device may only complete what was handed to it: [head, tail]. */
static inline bool
refnic_tx_cpl_head_ok(const struct refnic_tx_queue *txq, uint16_t head, uint16_t tail,
		      uint16_t sq_head)
{
	return sq_head < txq->size &&
	       ((sq_head - head) & txq->mask) <= ((tail - head) & txq->mask);
}

/*
 * The TX completions the device has written since (*cq_head, *phase), read
 * up to the first not written yet or not valid (bad: a head outside what
 * was handed over, [head, tail]). Returns the device's head after them and
 * moves *cq_head and *phase past them; at most a ring's worth, however
 * the device flips phase bits under it. Used by the burst (consuming) and
 * by the doorbell check on another thread (looking), each with its own
 * copies of the indexes.
 */
static inline uint16_t
refnic_tx_cpl_walk(const struct refnic_tx_queue *txq, uint16_t head, uint16_t tail,
		   uint16_t *cq_head, uint8_t *phase, bool *bad, uint16_t *bad_head)
{
	uint16_t cq = *cq_head, sq_head, n;
	uint8_t ph = *phase;

	*bad = false;
	for (n = 0; n < txq->size; n++) {
		const volatile struct refnic_tx_cpl *cpl = &txq->cq[cq];

		if ((__atomic_load_n(&cpl->phase, __ATOMIC_ACQUIRE) & REFNIC_PHASE_BIT) != ph)
			break;
		rte_io_rmb();
		/* Atomic: the check may lag a lap, the device rewriting the slot. */
		sq_head = __atomic_load_n(&cpl->sq_head, __ATOMIC_RELAXED);
		if (unlikely(!refnic_tx_cpl_head_ok(txq, head, tail, sq_head))) {
			*bad = true;
			*bad_head = sq_head;
			break;
		}
		head = sq_head;
		cq = (cq + 1) & txq->mask;
		if (cq == 0)
			ph ^= REFNIC_PHASE_BIT;
	}
	*cq_head = cq;
	*phase = ph;
	return head;
}

uint16_t refnic_rx_refill(struct refnic_rx_queue *rxq);

/* refnic_rx_refill(), if free_thresh slots are free: the test inline, as
 * most bursts (a lone frame's all but one in free_thresh) post nothing. */
static __rte_always_inline void
refnic_rx_refill_due(struct refnic_rx_queue *rxq)
{
	if (unlikely(rxq->mask - ((rxq->tail - rxq->next) & rxq->mask) >= rxq->free_thresh))
		refnic_rx_refill(rxq);
}
uint16_t refnic_rx_undelivered(const struct refnic_rx_queue *rxq);
uint16_t refnic_tx_unsent(const struct refnic_tx_queue *txq);
void refnic_rx_ol_flags_tbl_init(struct refnic_rx_queue *rxq);
uint32_t refnic_rx_buf_offset(struct rte_mempool *mp);
extern uint32_t refnic_rx_ptype_tbl[256];
uint64_t refnic_rx_mbuf_initializer(uint16_t port_id);
void refnic_tx_reclaim(struct refnic_tx_queue *txq, uint16_t want);


uint16_t refnic_recv_pkts(void *rxq, struct rte_mbuf **pkts, uint16_t nb_pkts);
uint16_t refnic_xmit_pkts(void *txq, struct rte_mbuf **pkts, uint16_t nb_pkts);
uint16_t refnic_prep_pkts(void *txq, struct rte_mbuf **pkts, uint16_t nb_pkts);

/* The scalar bursts' cores, which the vector bursts fall back to. */
uint16_t refnic_rx_scalar(struct refnic_rx_queue *rxq, struct rte_mbuf **pkts,
			  uint16_t nb_pkts);
uint16_t refnic_tx_scalar(struct refnic_tx_queue *txq, struct rte_mbuf **pkts,
			  uint16_t nb_pkts, uint16_t *tail, uint64_t *bytes, uint64_t *dropped);
/* refnic_wc.c: the burst's doorbell, a push line for a lone packet. */
void refnic_tx_notify(struct refnic_tx_queue *txq, struct rte_mbuf **pkts, uint16_t nb_taken,
		      uint16_t tail, uint64_t bytes, uint64_t dropped);
void refnic_tx_free_range(struct refnic_tx_queue *txq, uint16_t head);

/* refnic_timesync.c: the RX timestamp dynfield and flag, registered once. */
int refnic_rx_tstamp_register(int *offset, uint64_t *flag);

/* The port's burst functions, chosen at start; which ones run. */
void refnic_burst_select(struct rte_eth_dev *dev);
bool refnic_burst_is_ours(const struct rte_eth_dev *dev);
/* "Scalar", "Vector SSE", "Vector AVX2"; NULL: not refnic's. */
const char *refnic_rx_burst_name(const struct rte_eth_dev *dev);
const char *refnic_tx_burst_name(const struct rte_eth_dev *dev);

/* refnic_rxtx_vec.c: SSE bursts, 4 completions or packets at a time. */
uint16_t refnic_recv_pkts_vec(void *rxq, struct rte_mbuf **pkts, uint16_t nb_pkts);
uint16_t refnic_xmit_pkts_vec(void *txq, struct rte_mbuf **pkts, uint16_t nb_pkts);
bool refnic_vec_usable(void);
bool refnic_vec_avx2_usable(void);

/* refnic_rxtx_vec_avx2.c: AVX2 bursts, 8 completions or 2 descriptors a step. */
uint16_t refnic_recv_pkts_vec_avx2(void *rxq, struct rte_mbuf **pkts, uint16_t nb_pkts);
uint16_t refnic_xmit_pkts_vec_avx2(void *txq, struct rte_mbuf **pkts, uint16_t nb_pkts);

#endif /* _REFNIC_RXTX_H_ */
