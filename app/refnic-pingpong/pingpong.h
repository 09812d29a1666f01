/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _PINGPONG_H_
#define _PINGPONG_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

#include "histogram.h"

#define PP_PROG "refnic-pingpong"
/* Frames that hold the probe and, with --one-way, the clock readings. */
#define PP_ONE_WAY_MIN_SIZE 86

enum pp_role {
	PP_ROLE_BOTH,	/* client on one port, server on another, one lcore */
	PP_ROLE_CLIENT,
	PP_ROLE_SERVER,
};

enum pp_wait {
	PP_WAIT_POLL,
	PP_WAIT_INTR,	/* sleep in epoll on Rx queue interrupts when idle */
};

struct pp_conf {
	enum pp_role role;
	enum pp_wait wait;
	uint16_t client_port;
	uint16_t server_port;
	uint32_t size;		/* frame length without CRC */
	uint32_t inflight;	/* probes outstanding at once */
	uint16_t nb_desc;	/* Rx and Tx ring sizes */
	uint64_t warmup;	/* replies discarded before sampling */
	uint64_t count;		/* samples wanted; 0 with a duration */
	double duration_s;	/* sampling time; 0 with a count */
	uint64_t timeout_ms;	/* a probe with no reply by then is lost */
	uint64_t link_timeout_s;	/* client: wait this long for link up */
	bool one_way;		/* one-way latencies from the ports' RX stamps */
	bool json;
	const char *csv_path;
	const char *plot_path;
};

/*
 * --one-way: each direction's latency from the device clocks, when both ends
 * stamp: the server's RX stamp of a probe less the client port's clock when
 * it was sent, and the client's RX stamp of the reply less the server port's
 * clock when it was sent back. The two clocks must share a time base (refnic
 * ports of one host do until one is set or adjusted; or PTP).
 */
struct pp_oneway {
	uint64_t unstamped;	/* samples an end had no stamp or clock for */
	uint64_t negative;	/* samples the clocks put before their send */
	struct pp_hist there;	/* client -> server */
	struct pp_hist back;	/* server -> client */
};

struct pp_stats {
	uint64_t sent;		/* probes sent, warm-up included */
	uint64_t replies;	/* replies matched, warm-up included */
	uint64_t lost;		/* probes timed out */
	uint64_t late;		/* replies to probes already timed out */
	uint64_t stray;		/* frames that answer no probe of this run */
	uint64_t tx_busy;	/* tx bursts the port took nothing from */
	uint64_t reflected;	/* server: probes sent back */
	uint64_t ignored;	/* server: frames that were not probes */
	uint64_t goodbyes;	/* server: clients' goodbyes answered */
	bool bye_acked;		/* client: the server answered its goodbye */
	uint64_t wakeups;	/* --wait intr: epoll waits ended by an event */
	uint64_t sleeps;	/* --wait intr: epoll waits */
	double elapsed_s;	/* sampling time (after warm-up) */
	bool interrupted;	/* SIGINT/SIGTERM ended the run */
	bool gave_up;		/* no reply for too long */
	struct pp_oneway oneway;
};

/*
 * Set up Rx interrupts on the ports the role uses (--wait intr). Prints one
 * line and returns a negative errno if a port has none.
 */
int pp_intr_setup(const struct pp_conf *conf);

/* Run the role until done or signalled; RTTs go into h. */
int pp_run(const struct pp_conf *conf, struct rte_mempool *mp,
	   struct pp_hist *h, struct pp_stats *st);

void pp_report_text(FILE *f, const struct pp_conf *conf,
		    const struct pp_stats *st, const struct pp_hist *h);
void pp_report_json(FILE *f, const struct pp_conf *conf,
		    const struct pp_stats *st, const struct pp_hist *h);
int pp_report_csv(const char *path, const struct pp_hist *h);
/* The gnuplot binary on PATH, or NULL. */
const char *pp_gnuplot_path(void);
int pp_report_plot(const char *path, const struct pp_conf *conf,
		   const struct pp_hist *h);
const char *pp_role_name(enum pp_role role);

#endif /* _PINGPONG_H_ */
