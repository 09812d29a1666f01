/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Two wired ports forwarded by every worker lcore, each on its own queue
 * pair, with every frame accounted for: the harness of the stress and soak
 * suites (test_stress.c, test_soak.c).
 *
 * Port A sends UDP flows (RSS spreads them over B's queues), port B sends
 * each frame back (io forwarding), A takes them. Each lcore counts what it
 * moved (struct st_lcore); st_dir() reads one direction from the devices'
 * counters, so that a suite checks the application's counts against the
 * NIC's, both ways.
 */
#ifndef REFNIC_TEST_LCORE_FWD_H
#define REFNIC_TEST_LCORE_FWD_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_lcore.h>
#include <rte_mempool.h>

#include "test_common.h"

#define ST_RING		256
#define ST_BURST	32
#define ST_MAX_Q	4
#define ST_POOL_SIZE	8191
#define ST_MAGIC	0x5eed

/* Per lcore, written by its lcore only (relaxed atomics: the main lcore reads them). */
struct st_lcore {
	uint64_t sent;		/* frames A's TX queue took */
	uint64_t rx_b;		/* frames taken from B's RX queue */
	uint64_t fwd;		/* of those, frames B's TX queue took back */
	uint64_t rx_a;		/* frames taken from A's RX queue */
	uint64_t bad;		/* frames that were not what was sent */
	uint64_t senders;	/* lcores whose frames reached B's RX queue (bits) */
	uint64_t idle;		/* rounds in a row that moved no frame */
	uint64_t rounds;	/* rounds done */
	uint32_t seq;
	bool held;
	bool done;		/* returned: released for st_join() */
} __rte_cache_aligned;

extern struct st_lcore st_l[RTE_MAX_LCORE];
extern struct rte_mempool *st_pool;
extern uint16_t st_port[2];
extern const char *st_name[2];
extern uint16_t st_nq;
extern bool st_stop, st_hold, st_sending;
extern unsigned int st_qbase;	/* lcore index that forwards on queue pair 0 */

#define ST_LOAD(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

struct st_totals {
	uint64_t sent, rx_b, fwd, rx_a, bad;
};

/* One direction, as the devices count it: TX'd by the sender, then received or dropped. */
struct st_dir {
	uint64_t tx, tx_malformed, cable_tx_dropped;
	uint64_t rx, rx_no_buffer, rx_filtered, rx_oversize, cable_rx_dropped;
};

int st_port_start(uint16_t port, uint16_t nq);
int st_setup(const char *a, const char *b, uint16_t nq, const char *extra);
void st_teardown(void);
unsigned int st_round(struct st_lcore *l, unsigned int idx, uint16_t q, bool send);
void st_launch(void);
void st_join(void);
void st_wait_quiet(bool serve);
void st_sum(struct st_totals *t);
void st_dir(const struct refnic_hw_stats *tx, const struct refnic_hw_stats *tx0,
	    const struct refnic_hw_stats *rx, const struct refnic_hw_stats *rx0, struct st_dir *d);
uint64_t st_dir_drops(const struct st_dir *d);
void st_dir_print(const char *what, const struct st_dir *d);
int st_flows_again(uint16_t from, uint16_t to);
int st_mbufs_back(void);

#endif
