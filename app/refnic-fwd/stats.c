/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Statistics: the ports' own counters (rte_eth_stats_get), as deltas from
 * the moment forwarding started, plus what only the app knows (frames TX
 * refused). Periodic lines and the totals go to fwd_out; the JSON summary,
 * with --json, is the only thing written to stdout.
 *
 * Gbps counts each frame's bytes plus 24 (preamble and start delimiter 8,
 * FCS 4, inter-frame gap 12), as line rate is counted: 64-byte frames at
 * 10 Gbps line rate are 14.88 Mpps. A port that counts packets but no
 * bytes (net_null) has no Gbps: "n/a", null in JSON.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "fwd.h"

#define SETTLE_MS	1000
#define SETTLE_STEP_US	20000

static struct rte_eth_stats base[RTE_MAX_ETHPORTS];
static struct rte_eth_stats last[RTE_MAX_ETHPORTS];
static uint64_t last_tsc;

static void
read_stats(uint16_t port, struct rte_eth_stats *st)
{
	int ret = rte_eth_stats_get(port, st);

	if (ret != 0) {
		/* What the port cannot tell counts as nothing; said each time. */
		fprintf(stderr, "port %u: cannot read statistics: %s\n", port, rte_strerror(-ret));
		memset(st, 0, sizeof(*st));
	}
}

static double
mpps(uint64_t packets, double seconds)
{
	return seconds > 0 ? packets / seconds / 1e6 : 0;
}

/* Negative when the port does not count bytes. */
static double
gbps(uint64_t packets, uint64_t bytes, double seconds)
{
	if (packets > 0 && bytes == 0)
		return -1;
	return seconds > 0 ? (bytes + (double)packets * FWD_WIRE_OVERHEAD) * 8 / seconds / 1e9 : 0;
}

/* A Gbps figure, width wide, or n/a; the buffer is static: one use per call. */
static const char *
gbps_str(double v, int width, bool json)
{
	static char buf[4][32];
	static unsigned int next;
	char *b = buf[next++ % RTE_DIM(buf)];

	if (v < 0)
		snprintf(b, sizeof(buf[0]), "%*s", width, json ? "null" : "n/a");
	else
		snprintf(b, sizeof(buf[0]), json ? "%*.6f" : "%*.3f", width, v);
	return b;
}

static unsigned int
digits(uint64_t v)
{
	unsigned int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

void
stats_begin(void)
{
	uint16_t port;

	RTE_ETH_FOREACH_DEV(port) {
		if (!fwd_ports[port].used)
			continue;
		read_stats(port, &base[port]);
		last[port] = base[port];
	}
	last_tsc = rte_get_timer_cycles();
}

void
stats_period(uint64_t elapsed_s)
{
	uint64_t now = rte_get_timer_cycles();
	double dt = (double)(now - last_tsc) / rte_get_timer_hz();
	const char *sep = "";
	struct rte_eth_stats st;
	uint16_t port;

	/* The progress indicator: "[ 3/10s]" in a timed run, "[  3s]" otherwise. */
	if (fwd_cfg.duration_s > 0)
		fprintf(fwd_out, "[%*" PRIu64 "/%" PRIu64 "s]", digits(fwd_cfg.duration_s),
			elapsed_s, fwd_cfg.duration_s);
	else
		fprintf(fwd_out, "[%3" PRIu64 "s]", elapsed_s);
	RTE_ETH_FOREACH_DEV(port) {
		if (!fwd_ports[port].used)
			continue;
		read_stats(port, &st);
		fprintf(fwd_out, "%s port %u rx %7.3f Mpps %s Gbps tx %7.3f Mpps %s Gbps",
			sep, port,
			mpps(st.ipackets - last[port].ipackets, dt),
			gbps_str(gbps(st.ipackets - last[port].ipackets,
				      st.ibytes - last[port].ibytes, dt), 7, false),
			mpps(st.opackets - last[port].opackets, dt),
			gbps_str(gbps(st.opackets - last[port].opackets,
				      st.obytes - last[port].obytes, dt), 7, false));
		sep = " |";
		last[port] = st;
	}
	fprintf(fwd_out, "\n");
	fflush(fwd_out);
	last_tsc = now;
}

/* A JSON string: port names come from the command line. */
static void
json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/*
 * Frames handed to a port just before the stop may still be on their way
 * (a software device works beside the app, a NIC drains its rings): read
 * the counters until two reads agree, for at most SETTLE_MS.
 */
static void
settle(struct rte_eth_stats *st)
{
	static struct rte_eth_stats prev[RTE_MAX_ETHPORTS];
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() * SETTLE_MS / 1000;
	bool same;
	uint16_t port;

	do {
		same = true;
		RTE_ETH_FOREACH_DEV(port) {
			if (!fwd_ports[port].used)
				continue;
			prev[port] = st[port];
			read_stats(port, &st[port]);
			if (memcmp(&prev[port], &st[port], sizeof(st[port])) != 0)
				same = false;
		}
		if (!same)
			rte_delay_us_sleep(SETTLE_STEP_US);
	} while (!same && rte_get_timer_cycles() < deadline);
}

struct port_totals {
	struct rte_eth_stats d;	/* since stats_begin() */
	uint64_t tx_dropped;	/* refused by TX, freed by the app */
	uint64_t dropped;
};

static void
print_json(double elapsed_s, const char *stopped_by, const struct port_totals *tot,
	   uint64_t intr_waits, uint64_t intr_wakeups)
{
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	const char *sep = "";
	uint16_t port;

	printf("{\"mode\": \"%s\", \"duration_s\": %.6f, \"stopped_by\": \"%s\", "
	       "\"burst\": %u, \"pkt_size\": %u, \"wait\": \"%s\", ",
	       fwd_mode_name(fwd_cfg.mode), elapsed_s, stopped_by, fwd_cfg.burst,
	       fwd_cfg.pkt_size, fwd_cfg.wait_intr ? "intr" : "poll");
	if (fwd_cfg.wait_intr)
		printf("\"intr_waits\": %" PRIu64 ", \"intr_wakeups\": %" PRIu64 ", ",
		       intr_waits, intr_wakeups);
	printf("\"ports\": [");
	RTE_ETH_FOREACH_DEV(port) {
		const struct fwd_port *p = &fwd_ports[port];
		const struct port_totals *t = &tot[port];

		if (!p->used)
			continue;
		rte_ether_format_addr(mac, sizeof(mac), &p->mac);
		printf("%s{\"port\": %u, \"name\": ", sep, port);
		json_string(stdout, p->name);
		printf(", \"mac\": \"%s\", \"mode\": \"%s\", \"peer\": %u, "
		       "\"rx_packets\": %" PRIu64 ", \"rx_bytes\": %" PRIu64 ", "
		       "\"tx_packets\": %" PRIu64 ", \"tx_bytes\": %" PRIu64 ", "
		       "\"rx_missed\": %" PRIu64 ", \"rx_errors\": %" PRIu64 ", "
		       "\"rx_nombuf\": %" PRIu64 ", \"tx_errors\": %" PRIu64 ", "
		       "\"tx_dropped\": %" PRIu64 ", \"dropped\": %" PRIu64 ", "
		       "\"rx_mpps\": %.6f, \"rx_gbps\": %s, \"tx_mpps\": %.6f, \"tx_gbps\": %s}",
		       mac, fwd_mode_name(p->mode), p->peer,
		       t->d.ipackets, t->d.ibytes, t->d.opackets, t->d.obytes,
		       t->d.imissed, t->d.ierrors, t->d.rx_nombuf, t->d.oerrors,
		       t->tx_dropped, t->dropped,
		       mpps(t->d.ipackets, elapsed_s),
		       gbps_str(gbps(t->d.ipackets, t->d.ibytes, elapsed_s), 0, true),
		       mpps(t->d.opackets, elapsed_s),
		       gbps_str(gbps(t->d.opackets, t->d.obytes, elapsed_s), 0, true));
		sep = ", ";
	}
	printf("]}\n");
	fflush(stdout);
}

void
stats_end(double elapsed_s, const char *stopped_by, const struct fwd_lcore *lcores,
	  unsigned int nb_lcores)
{
	static struct port_totals tot[RTE_MAX_ETHPORTS];
	static struct rte_eth_stats final[RTE_MAX_ETHPORTS];
	uint64_t intr_waits = 0, intr_wakeups = 0;
	unsigned int l;
	uint16_t port, i;

	memset(tot, 0, sizeof(tot));
	for (l = 0; l < nb_lcores; l++) {
		for (i = 0; i < lcores[l].nb_streams; i++)
			tot[lcores[l].streams[i]->tx_port].tx_dropped +=
				lcores[l].streams[i]->tx_dropped;
		intr_waits += lcores[l].intr_waits;
		intr_wakeups += lcores[l].intr_wakeups;
	}

	settle(final);
	fprintf(fwd_out, "totals after %.2f s (%s):\n", elapsed_s, stopped_by);
	RTE_ETH_FOREACH_DEV(port) {
		struct port_totals *t = &tot[port];
		const struct rte_eth_stats *st = &final[port];

		if (!fwd_ports[port].used)
			continue;
		t->d.ipackets = st->ipackets - base[port].ipackets;
		t->d.ibytes = st->ibytes - base[port].ibytes;
		t->d.opackets = st->opackets - base[port].opackets;
		t->d.obytes = st->obytes - base[port].obytes;
		t->d.imissed = st->imissed - base[port].imissed;
		t->d.ierrors = st->ierrors - base[port].ierrors;
		t->d.oerrors = st->oerrors - base[port].oerrors;
		t->d.rx_nombuf = st->rx_nombuf - base[port].rx_nombuf;
		t->dropped = t->d.imissed + t->tx_dropped;
		fprintf(fwd_out, "port %u: rx %" PRIu64 " packets %" PRIu64 " bytes, "
			"tx %" PRIu64 " packets %" PRIu64 " bytes, "
			"dropped %" PRIu64 " (rx missed %" PRIu64 ", tx refused %" PRIu64 "); "
			"mean rx %.3f Mpps %s Gbps, tx %.3f Mpps %s Gbps\n",
			port, t->d.ipackets, t->d.ibytes, t->d.opackets, t->d.obytes,
			t->dropped, t->d.imissed, t->tx_dropped,
			mpps(t->d.ipackets, elapsed_s),
			gbps_str(gbps(t->d.ipackets, t->d.ibytes, elapsed_s), 0, false),
			mpps(t->d.opackets, elapsed_s),
			gbps_str(gbps(t->d.opackets, t->d.obytes, elapsed_s), 0, false));
	}
	if (fwd_cfg.wait_intr)
		fprintf(fwd_out, "interrupt waits %" PRIu64 ", ended by a frame %" PRIu64 "\n",
			intr_waits, intr_wakeups);
	fflush(fwd_out);
	if (fwd_cfg.json)
		print_json(elapsed_s, stopped_by, tot, intr_waits, intr_wakeups);
}
