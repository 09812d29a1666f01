/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_CABLE_SHM_H_
#define _REFNIC_EMU_CABLE_SHM_H_

/*
 * The shared-memory cable's file (/dev/shm/refnic-cable-NAME), as both
 * processes map it: the cable (refnic_emu_cable_shm*.c) and the fuzzer that
 * plays a hostile far end (tests/fuzz/fuzz_shm_cable.c).
 *
 * Frames do not wait in the file. Each end publishes its port's receive
 * side here (struct shm_port: how it filters, where its RX rings are, the
 * tails it took, its queue vectors) and hands the far end its DPDK memory
 * over the cable's socket (struct shm_msg, with the memory's file
 * descriptors); the far end's TX doorbell then writes frames straight into
 * its RX buffers and completion rings, as a vhost-user back end writes
 * into a guest's. Each word below says whose it is: the receiving end's
 * ("rx") or the delivering end's ("tx").
 */

#include <stdint.h>

#include <rte_common.h>

#include "refnic_hw.h"

#define REFNIC_SHM_PATH_FMT	"/refnic-cable-%s"	/* shm_open name */

#define SHM_MAGIC		0x52464e53	/* "RFNS" */
#define SHM_VERSION		5	/* 3: the flow table; 4: RX stamps;
					 * 5: RX write-back */

/*
 * The receiving port's flow table and queue vectors lie in the file as its
 * device holds them (struct refnic_emu_flows, struct refnic_emu_intr), so
 * that the far end's deliveries look rules up and raise vectors in place:
 * here only their sizes, which the cable checks against the device's at
 * build time (a change to either changes SHM_VERSION too). Counters: one
 * shard per thread that may deliver (REFNIC_EMU_SHARDS).
 */
#define SHM_FLOWS_SIZE		295192
#define SHM_INTR_SIZE		3112
#define SHM_SHARDS		33

/* How a port judges the frames it receives; rx's, under seq (odd: changing). */
struct shm_rx_config {
	uint32_t seq;
	uint32_t state;			/* enum refnic_hw_state */
	uint32_t phy_down;
	uint32_t nb_queues;
	uint32_t mtu;
	uint32_t rx_mode;		/* REFNIC_RX_MODE_* */
	uint32_t features;		/* REFNIC_FEATURES_SWITCHABLE bits on */
	uint32_t nb_mac_filters;
	uint32_t nb_mc_filters;
	uint8_t corrupt_what;		/* fault_corrupt, RX completions included */
	uint32_t corrupt_every;
	uint8_t mac[6];
	uint8_t mac_filter[REFNIC_MAX_MAC_FILTERS][6];
	uint8_t mc_filter[REFNIC_MAX_MC_FILTERS][6];
	uint64_t vlan_filter[(REFNIC_MAX_VLAN_ID + 1) / 64];
	struct refnic_rss_config rss;
	uint32_t flows_gen;		/* shm_port.flows, as of this change */
};

/* One RX queue of the receiving port. */
struct shm_rxq {
	/* rx's: set at create and destroy, gen bumped last. */
	uint32_t gen;
	uint32_t enabled;
	uint16_t size;
	uint16_t buf_size;
	uint16_t vector;
	uint16_t intr;
	uint16_t stamps;		/* REFNIC_QCREATE_RX_TSTAMP: a stamp per
					 * completion (1.4) */
	uint16_t wb;			/* REFNIC_QCREATE_RX_WB: completions
					 * written into the descriptors (1.6) */
	uint32_t mem_gen;		/* the memory table its buffers need */
	uint64_t ring_iova;
	uint64_t cq_iova;
	uint32_t tail;			/* its doorbell, as the device took it */
	/* tx's: where delivery stands. */
	uint32_t pub __rte_cache_aligned; /* first completion not published */
	uint32_t head;			/* next posted buffer */
	uint32_t phase;			/* of the completion at head */
	uint32_t busy;			/* the delivering end's lock tag: in the ring */
	uint32_t error;			/* stopped on a DMA error or a bad tail */
} __rte_cache_aligned;

/* An end's receive side: everything the far end needs to deliver to it. */
struct shm_port {
	struct shm_rx_config cfg;
	uint32_t mem_gen;		/* rx's: the last memory table sent */
	uint32_t errors_pending;	/* tx's: queues with .error to report */
	struct shm_rxq q[REFNIC_MAX_QUEUES];
	/* rx's: its flow table, written with cfg (under cfg.seq). */
	uint8_t flows[SHM_FLOWS_SIZE] __rte_aligned(8);
	/* The port's queue vectors: its own TX causes and the far end's RX
	 * deliveries raise them, under each vector's lock (a tag, below). */
	uint8_t intr[SHM_INTR_SIZE] __rte_cache_aligned;
	/* tx's: what the far end's threads counted for this port, one shard
	 * each (their shard ids). */
	struct refnic_hw_stats stats[SHM_SHARDS] __rte_cache_aligned;
};

struct shm_end {
	int32_t pid;			/* process holding the end, 0: free (for logs) */
	uint32_t gen;			/* bumped by every attachment */
	uint32_t dozing;		/* its engine sleeps: send a wake-up */
	/* Its threads delivering into the other end's port right now: that
	 * end, attaching anew, waits for none to be left in its memory. */
	uint32_t delivering __rte_cache_aligned;
} __rte_cache_aligned;

struct shm_layout {
	uint32_t magic;
	uint32_t version;
	uint64_t size;			/* of the whole layout */
	uint32_t unplugged;		/* pulled, by either side */
	struct shm_end end[2] __rte_cache_aligned;
	struct shm_port port[2];	/* port[i]: end i's receive side */
};

/*
 * Lock tags of the words two processes take (a vector's lock, a queue's
 * busy word): the taker's end and attachment, so that a lock a dead
 * process held can be told from one a live thread holds.
 */
static inline uint32_t
shm_lock_tag(unsigned int end, uint32_t gen)
{
	return (gen << 1 | end) | UINT32_C(0x80000000);
}

/* Messages on the cable's socket, from the receiving end to the far end. */
#define SHM_MSG_MAGIC		0x52464e4d	/* "RFNM" */
#define SHM_MSG_HELLO		1	/* fds: the vectors, then engine 0's kick */
#define SHM_MSG_MEM		2	/* fds: one per region */
#define SHM_MSG_ASK		3	/* no fds: send HELLO and the table again */
#define SHM_MSG_REGIONS		128	/* per message */

struct shm_msg_region {
	uint64_t iova;
	uint64_t len;
	uint64_t offset;		/* in its file */
};

struct shm_msg {
	uint32_t magic;
	uint16_t type;
	uint16_t count;			/* fds (and regions) that come with it */
	uint32_t gen;			/* the sender's attachment */
	uint32_t mem_gen;		/* MEM: the table this is part of */
	uint32_t first;			/* MEM: index of reg[0] in the table */
	uint32_t total;			/* MEM: regions in the table */
	uint64_t bar_iova;		/* HELLO: the BAR's registers */
	uint32_t nb_vectors;		/* HELLO */
	struct shm_msg_region reg[SHM_MSG_REGIONS];
};

#endif /* _REFNIC_EMU_CABLE_SHM_H_ */
