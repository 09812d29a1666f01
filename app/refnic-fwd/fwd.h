/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_FWD_H_
#define _REFNIC_FWD_H_

/* refnic-fwd: what main.c (arguments, set-up), fwd_modes.c (bursts) and stats.c share. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#define FWD_MAX_BURST		512
#define FWD_MIN_PKT_SIZE	60	/* frame bytes without FCS: 64 on the wire */
#define FWD_MAX_PKT_SIZE	9000
/* Per frame on the wire besides its bytes: preamble+SFD 8, FCS 4, IFG 12. */
#define FWD_WIRE_OVERHEAD	24
/* Ethernet + IPv4 + UDP headers of a txonly frame. */
#define FWD_TXONLY_HDR_LEN	(sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) + \
				 sizeof(struct rte_udp_hdr))

enum fwd_mode {
	FWD_IO,
	FWD_MAC,
	FWD_MACSWAP,
	FWD_TXONLY,
	FWD_RXONLY,
	FWD_MODE_COUNT
};

/* "io", ..., or NULL; and back (-1 if unknown). */
const char *fwd_mode_name(enum fwd_mode mode);
int fwd_mode_parse(const char *name);

/*
 * One RX queue polled by one lcore, and where its packets go. In txonly and
 * rxonly the TX side is the RX port itself.
 */
struct fwd_stream {
	uint16_t rx_port;
	uint16_t rx_queue;
	uint16_t tx_port;
	uint16_t tx_queue;
	enum fwd_mode mode;
	struct rte_mempool *pool;
	/* txonly: frames still to send (UINT64_MAX: no limit). */
	uint64_t tx_left;
	/* Headers of the first print_left received frames are printed. */
	uint64_t print_left;
	/* Frames TX refused and the app freed (io, mac, macswap). */
	uint64_t tx_dropped;
	/* mac: the source (TX port's) and destination (its peer's) addresses. */
	struct rte_ether_addr eth_src;
	struct rte_ether_addr eth_dst;
	/* A generated frame's headers, and generated frames TX has not taken yet. */
	uint8_t hdr[FWD_TXONLY_HDR_LEN];
	uint16_t pkt_size;
	uint16_t nb_pending;
	struct rte_mbuf *pending[FWD_MAX_BURST];
} __rte_cache_aligned;

/* The streams one forwarding lcore polls in turn. */
struct fwd_lcore {
	unsigned int lcore_id;
	uint16_t nb_streams;
	struct fwd_stream **streams;
	/* --wait intr: sleeps in epoll, and those a frame ended. */
	uint64_t intr_waits;
	uint64_t intr_wakeups;
	bool intr_armed;
};

struct fwd_port {
	bool used;
	uint16_t peer;
	enum fwd_mode mode;
	struct rte_ether_addr mac;
	struct rte_ether_addr peer_mac;
	char name[RTE_ETH_NAME_MAX_LEN];
};

/* What the options say. */
struct fwd_config {
	enum fwd_mode mode;
	int port_mode[RTE_MAX_ETHPORTS];	/* -1: --mode */
	bool peer_set[RTE_MAX_ETHPORTS];
	struct rte_ether_addr peer_mac[RTE_MAX_ETHPORTS];
	uint16_t burst;
	uint16_t nb_rxd;
	uint16_t nb_txd;
	uint16_t nb_rxq;
	uint16_t nb_txq;
	uint32_t nb_mbufs;		/* 0: as many as the rings need */
	uint16_t pkt_size;
	uint64_t count;			/* 0: no limit */
	uint64_t duration_s;		/* 0: until a signal */
	uint64_t stats_period_s;	/* 0: no periodic line */
	uint64_t print_headers;
	bool tx_first;
	bool json;
	bool wait_intr;			/* --wait intr: sleep on Rx interrupts when idle */
};

extern struct fwd_config fwd_cfg;
extern struct fwd_port fwd_ports[RTE_MAX_ETHPORTS];
/* Where everything but the JSON summary and errors goes: stdout, or stderr with --json. */
extern FILE *fwd_out;

/* fwd_modes.c */
void fwd_stream_init(struct fwd_stream *s);
int fwd_lcore_main(void *arg);
void fwd_stop_all(void);

/* stats.c */
void stats_begin(void);
void stats_period(uint64_t elapsed_s);
void stats_end(double elapsed_s, const char *stopped_by, const struct fwd_lcore *lcores,
	       unsigned int nb_lcores);

#endif /* _REFNIC_FWD_H_ */
