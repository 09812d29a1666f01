/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _TEST_COMMON_H_
#define _TEST_COMMON_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "refnic_compat.h"
#include "refnic_emu.h"
#include "refnic_test.h"

#define TEST_RING_SIZE		256
#define TEST_BURST		32
#define TEST_WAIT_S		5	/* bound on waiting for the device; not a timing check */
#define TEST_ETHERTYPE		0x88b5	/* IEEE local experimental */
#define TEST_MIN_FRAME		60	/* what Ethernet pads short frames to */

extern struct rte_mempool *test_pool;

/* Probe a net_refnic vdev and return its port id. */
int test_port_create(const char *name, const char *args, uint16_t *port_id);
void test_port_destroy(const char *name);
/*
 * The port-pair fixture: ports name_a and name_b wired back to back (the
 * cable is named after name_a), each configured with conf and nb_queues
 * queue pairs, started and promiscuous. Zero fields take the defaults.
 */
struct test_pair_conf {
	const char *name_a, *name_b;
	const char *args_a;		/* devargs after "cable=...,"; NULL: those in
					 * $REFNIC_TEST_DEVARGS, else profile=ideal */
	const char *args_b;		/* NULL: args_a */
	const struct rte_eth_conf *conf;	/* NULL: all defaults */
	uint16_t nb_queues;		/* queue pairs each; 0: 1 */
	uint16_t rx_ring;		/* 0: TEST_RING_SIZE */
	uint16_t rx_ring_b;		/* B's RX rings; 0: rx_ring */
	uint16_t tx_ring;		/* 0: TEST_RING_SIZE */
	struct rte_mempool *pool;	/* RX buffers; NULL: test_pool */
};
/* Probe the pair, start both ends and read B's address into mac_b (unless
 * NULL); 0, or an error with nothing left behind. */
int test_pair_setup(const struct test_pair_conf *c, uint16_t *a, uint16_t *b,
		    struct rte_ether_addr *mac_b);
void test_pair_teardown(const struct test_pair_conf *c);
/* The two halves of test_pair_setup(), for a case that acts in between. */
int test_pair_probe(const struct test_pair_conf *c, uint16_t *a, uint16_t *b);
int test_pair_start(const struct test_pair_conf *c, uint16_t a, uint16_t b,
		    struct rte_ether_addr *mac_b);
/* test_pair_probe() with the defaults: ports not started. */
int test_pair_create(const char *name_a, const char *name_b, uint16_t *a, uint16_t *b);
void test_pair_destroy(const char *name_a, const char *name_b);
/* (Re)configure a port with conf (NULL: defaults) and nb_queues queue pairs
 * (0: 1) of rx_ring and tx_ring descriptors (0: TEST_RING_SIZE), RX buffers
 * from pool (NULL: test_pool); start it, promiscuous. */
int test_port_setup(uint16_t port, const struct rte_eth_conf *conf, uint16_t nb_queues,
		    uint16_t rx_ring, uint16_t tx_ring, struct rte_mempool *pool);
/* (Re)configure one queue pair of TEST_RING_SIZE, start it, promiscuous. */
int test_port_start(uint16_t port_id, uint64_t rx_offloads, uint16_t mtu);
int test_port_start_offloads(uint16_t port_id, uint64_t rx_offloads, uint64_t tx_offloads,
			     uint16_t mtu);

/* The device's own counters, read as a lab instrument would. */
void test_hw_stats(const char *name, struct refnic_hw_stats *stats);

/* An xstat of the port by name; UINT64_MAX if it has none. */
uint64_t test_xstat(uint16_t port_id, const char *name);

/* A frame of len bytes (in nb_segs segments) whose payload derives from seed. */
struct rte_mbuf *test_make_pkt(const struct rte_ether_addr *dst, uint32_t len,
			       uint32_t seed, uint16_t nb_segs);
/* An IPv4 or IPv6 TCP/UDP frame (IPPROTO_*) to broadcast, payload bytes of
 * payload, padded to TEST_MIN_FRAME; checksums right if csum_ok, else 0;
 * nb_segs 1 or 2 (the payload's second half in the second). */
struct rte_mbuf *test_make_l4_pkt(bool v6, uint8_t proto, bool csum_ok, uint16_t nb_segs,
				  uint32_t payload);
/* A TCP frame of that flow (addresses of 4 bytes, or 16 if v6) to broadcast. */
struct rte_mbuf *test_make_tcp_pkt(const uint8_t *src, const uint8_t *dst, bool v6,
				   uint16_t sport, uint16_t dport);
/* Does m hold exactly what test_make_pkt(dst, len, seed, any) built? */
bool test_pkt_matches(const struct rte_mbuf *m, const struct rte_ether_addr *dst,
		      uint32_t len, uint32_t seed);

/* Send all n packets, retrying while the ring is full; returns the count sent. */
uint16_t test_tx_all(uint16_t port_id, struct rte_mbuf **pkts, uint16_t n);
/* The same on TX queue queue. */
uint16_t test_tx_all_queue(uint16_t port_id, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);
/* Receive until n packets arrived or TEST_WAIT_S passed; returns the count. */
uint16_t test_rx_wait(uint16_t port_id, struct rte_mbuf **pkts, uint16_t n);
/* The same, for at most ms milliseconds. */
uint16_t test_rx_wait_ms(uint16_t port_id, struct rte_mbuf **pkts, uint16_t n,
			 unsigned int ms);
/* One 100-byte frame a -> b to dst (VLAN-tagged if vlan is not 0): true if
 * b received it, false once b's device counted it filtered (or after
 * TEST_WAIT_S). */
bool test_frame_passes(uint16_t a, uint16_t b, const struct rte_ether_addr *dst, uint16_t vlan);
/* Another thread at the port's counters, as telemetry or a monitor is:
 * pthread_create(..., test_stats_loop, &t) until t.stop. */
struct test_stats_thread {
	uint16_t port;
	bool reset;			/* rte_eth_stats_reset(), else _get() */
	bool stop;			/* atomic: set by the thread that waits */
	unsigned int calls;		/* atomic: others may watch it grow */
};
void *test_stats_loop(void *arg);
/* Whether the port's link reaches status (RTE_ETH_LINK_UP/DOWN) within TEST_WAIT_S. */
bool test_link_wait(uint16_t port_id, uint16_t status);
/* EAL's log into buf (len bytes, cleared first) until the stop; NULL if not. */
FILE *test_log_capture_start(char *buf, size_t len);
void test_log_capture_stop(FILE *f);
/* Whether the capture holds needle yet: while it runs, only so. */
bool test_log_has(const char *log, const char *needle);
/* How many times needle is in log; the last one into *last, unless NULL. */
unsigned int test_log_count(const char *log, const char *needle, const char **last);
/* Wait until one of the device's counters (offset in refnic_hw_stats) reaches
 * want; returns its value then. */
uint64_t test_hw_counter_wait(const char *name, size_t offset, uint64_t want);

#endif /* _TEST_COMMON_H_ */
