/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * refnic-witness: stamped frames out of every port, checked where they come
 * back, for an application in another process that forwards them (stock
 * testpmd, io forwarding, over cable=shm:NAME ports). Port p sends stream
 * p; what a port receives is checked as that port's queue. Ends with one
 * JSON line on stdout: the witness's counts and every port's counters that
 * account for a frame lost on this side.
 *
 *   refnic-witness [EAL args] -- --count N [--size BYTES] [--burst N]
 *                  [--window N] [--idle-ms MS] [--link-timeout-s S]
 *
 * It first sends a frame a port every 10 ms until one came back on every
 * port (within --link-timeout-s), then counts (the warm-up frames apart:
 * warmup_sent and warmup_back, a port's, late ones too). --window bounds the frames
 * of a port out and not back: the forwarder, not this tool, then sets the
 * pace (frames not back for 50 ms stop counting against it). The run ends
 * once every frame came back or none came for --idle-ms.
 *
 * A port whose link goes down meanwhile (the forwarder killed, say) is
 * noted: how often (link_downs) and how many of its frames were out, sent
 * and not back, each time it went (out_at_link_down): the most a far
 * process that died can have taken with it. Each change it sees is also
 * said on stderr as it happens ("refnic-witness: port P link down"), for
 * a test to wait on. After the count the ports
 * stop, and mbufs_in_use says how many of the tool's mbufs did not come
 * back to its pool (0: none leaked, by this side or its device).
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "witness.h"
#include "witness_frame.h"

#define W_PROG		"refnic-witness"
#define W_MAX_PORTS	4
#define W_MAX_BURST	64
#define W_RING		1024
#define W_WARMUP_STREAM	UINT16_MAX	/* frames before the count, not judged */
/* No frame back for this long: the frames out are taken as lost, for the
 * pace only (the window then opens again). */
#define W_PACE_MS	50
#define W_LINK_CHECK_MS	1	/* a port's link looked at */

/* Links going down under the count. */
struct w_links {
	bool down[W_MAX_PORTS];
	uint64_t downs[W_MAX_PORTS];
	uint64_t out_at_down[W_MAX_PORTS];
};

struct w_conf {
	uint64_t count;		/* frames each port sends */
	uint32_t size;
	uint16_t burst;
	uint32_t window;
	uint32_t idle_ms;
	uint32_t link_timeout_s;
};

static volatile sig_atomic_t w_quit;

static void
w_on_signal(int sig __rte_unused)
{
	w_quit = 1;
}

static int
w_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s == '\0' || *s == '-' || *end != '\0' || errno != 0 || v < min || v > max) {
		fprintf(stderr, "%s: --%s: '%s' is not a number from %" PRIu64 " to %" PRIu64
			"\n", W_PROG, opt, s, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int
w_parse_args(int argc, char **argv, struct w_conf *c)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 's' },
		{ "burst", required_argument, NULL, 'b' },
		{ "window", required_argument, NULL, 'w' },
		{ "idle-ms", required_argument, NULL, 'i' },
		{ "link-timeout-s", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int opt;

	*c = (struct w_conf){ .count = 100000, .size = 128, .burst = 32, .window = 512,
			      .idle_ms = 3000, .link_timeout_s = 20 };
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		const char *name = opts[0].name;
		int ret = -EINVAL;

		switch (opt) {
		case 'c':
			ret = w_parse_u64(name, optarg, 1, UINT32_MAX, &v);
			c->count = v;
			break;
		case 's':
			ret = w_parse_u64("size", optarg, WITNESS_FRAME_MIN, RTE_ETHER_MAX_LEN - 4, &v);
			c->size = v;
			break;
		case 'b':
			ret = w_parse_u64("burst", optarg, 1, W_MAX_BURST, &v);
			c->burst = v;
			break;
		case 'w':
			ret = w_parse_u64("window", optarg, 1, UINT32_MAX, &v);
			c->window = v;
			break;
		case 'i':
			ret = w_parse_u64("idle-ms", optarg, 1, 600000, &v);
			c->idle_ms = v;
			break;
		case 'l':
			ret = w_parse_u64("link-timeout-s", optarg, 0, 3600, &v);
			c->link_timeout_s = v;
			break;
		default:
			break;
		}
		if (ret != 0) {
			fprintf(stderr, "usage: %s [EAL args] -- --count N [--size BYTES] "
				"[--burst N] [--window N] [--idle-ms MS] [--link-timeout-s S]\n",
				W_PROG);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", W_PROG, argv[optind]);
		return -EINVAL;
	}
	return 0;
}

static int
w_port_start(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_conf conf = { 0 };
	uint16_t nb_rxd = W_RING, nb_txd = W_RING;
	int ret;

	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, nb_rxd, rte_eth_dev_socket_id(port),
					     NULL, mp);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, nb_txd, rte_eth_dev_socket_id(port),
					     NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret == 0)
		ret = rte_eth_promiscuous_enable(port);
	if (ret != 0)
		fprintf(stderr, "%s: port %u: cannot start: %s\n", W_PROG, port,
			rte_strerror(-ret));
	return ret;
}

static bool
w_links_up(uint16_t nb_ports, uint32_t timeout_s)
{
	uint64_t deadline = rte_get_timer_cycles() + timeout_s * rte_get_timer_hz();
	struct rte_eth_link link;
	uint16_t p;

	for (p = 0; p < nb_ports; p++)
		while (!w_quit && (rte_eth_link_get_nowait(p, &link) != 0 ||
				   link.link_status != RTE_ETH_LINK_UP)) {
			if (rte_get_timer_cycles() > deadline) {
				fprintf(stderr, "%s: port %u: link still down after %u s\n",
					W_PROG, p, timeout_s);
				return false;
			}
			rte_delay_us_sleep(10000);
		}
	return !w_quit;
}

/* A counter of port by xstat name; 0 if the port has none by that name. */
static uint64_t
w_xstat(uint16_t port, const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0 ||
	    rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return 0;
	return v;
}

/* What a port received, into the checker as queue port (warm-up frames
 * aside, into *warmup); returns the count. */
static uint16_t
w_receive(uint16_t port, struct witness_checker *w, uint64_t *warmup)
{
	struct rte_mbuf *rx[W_MAX_BURST];
	uint16_t n, i, stream;
	uint64_t seq;

	n = rte_eth_rx_burst(port, 0, rx, W_MAX_BURST);
	for (i = 0; i < n; i++) {
		if (witness_read_mbuf(rx[i], &stream, &seq) == 0 && stream == W_WARMUP_STREAM)
			warmup[port]++;
		else if (w != NULL)
			witness_check_mbuf(w, port, rx[i]);
	}
	rte_pktmbuf_free_bulk(rx, n);
	return n;
}

/*
 * Before counting: a frame every 10 ms out of each port until one came
 * back on every port. The far process's ports may come up after ours (it
 * maps our memory when it learns of us); frames sent before would only
 * test its drop counters.
 */
static bool
w_warm_up(uint16_t nb_ports, struct rte_mempool *mp, uint32_t timeout_s, uint64_t *warmup,
	  uint64_t *warmup_sent)
{
	const struct rte_ether_addr bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};
	uint64_t deadline = rte_get_timer_cycles() + timeout_s * rte_get_timer_hz(), seq = 0;
	struct rte_mbuf *m;
	uint16_t p, back;

	while (!w_quit && rte_get_timer_cycles() < deadline) {
		for (p = 0, back = 0; p < nb_ports; p++) {
			w_receive(p, NULL, warmup);
			back += warmup[p] != 0;
		}
		if (back == nb_ports)
			return true;
		for (p = 0; p < nb_ports; p++) {
			m = witness_frame(mp, &bcast, WITNESS_FRAME_MIN, 1, W_WARMUP_STREAM, seq);
			if (m != NULL && rte_eth_tx_burst(p, 0, &m, 1) != 1)
				rte_pktmbuf_free(m);
			else if (m != NULL)
				warmup_sent[p]++;
		}
		seq++;
		rte_delay_us_sleep(10000);
	}
	fprintf(stderr, "%s: no frame came back on every port within %u s\n", W_PROG, timeout_s);
	return false;
}

static void
w_report(const struct witness_checker *w, uint16_t nb_ports, const uint64_t *sent,
	 const uint64_t *warmup, const uint64_t *warmup_sent, const struct w_links *links,
	 struct rte_mempool *mp, double elapsed_s)
{
	struct rte_eth_stats st[W_MAX_PORTS];
	uint64_t cable_drops[W_MAX_PORTS];
	struct witness_counts t;
	uint64_t lost = 0;
	uint16_t p;

	witness_total(w, &t);
	for (p = 0; p < nb_ports; p++) {
		lost += witness_lost(w, p, sent[p]);
		memset(&st[p], 0, sizeof(st[p]));
		rte_eth_stats_get(p, &st[p]);
		cable_drops[p] = w_xstat(p, "cable_tx_dropped");
	}
	/* Counted: now every mbuf should come home. */
	for (p = 0; p < nb_ports; p++)
		rte_eth_dev_stop(p);
	printf("{\"elapsed_s\": %.3f, \"mbufs_in_use\": %u, \"sent\": [", elapsed_s,
	       rte_mempool_in_use_count(mp));
	for (p = 0; p < nb_ports; p++)
		printf("%s%" PRIu64, p ? ", " : "", sent[p]);
	printf("], \"received\": %" PRIu64 ", \"lost\": %" PRIu64 ", \"duplicated\": %" PRIu64
	       ", \"reordered\": %" PRIu64 ", \"corrupted\": %" PRIu64 ", \"ports\": [",
	       t.received, lost, t.duplicated, t.reordered, t.corrupted);
	for (p = 0; p < nb_ports; p++) {
		const struct witness_counts *q = witness_queue(w, p);

		printf("%s{\"stream_lost\": %" PRIu64 ", \"received\": %" PRIu64
		       ", \"reordered\": %" PRIu64 ", \"ipackets\": %" PRIu64
		       ", \"opackets\": %" PRIu64 ", \"oerrors\": %" PRIu64
		       ", \"imissed\": %" PRIu64 ", \"rx_nombuf\": %" PRIu64
		       ", \"cable_tx_dropped\": %" PRIu64 ", \"warmup_sent\": %" PRIu64
		       ", \"warmup_back\": %" PRIu64 ", \"link_downs\": %" PRIu64
		       ", \"out_at_link_down\": %" PRIu64 "}", p ? ", " : "",
		       witness_lost(w, p, sent[p]), q->received, q->reordered, st[p].ipackets,
		       st[p].opackets, st[p].oerrors, st[p].imissed, st[p].rx_nombuf,
		       cable_drops[p], warmup_sent[p], warmup[p], links->downs[p],
		       links->out_at_down[p]);
	}
	printf("]}\n");
	fflush(stdout);
}

/* Each port's link, every W_LINK_CHECK_MS: a port going down had
 * sent[p] - back of its frames out. */
static void
w_links_check(struct w_links *l, const struct witness_checker *w, uint16_t nb_ports,
	      const uint64_t *sent)
{
	struct rte_eth_link link;
	uint16_t p;
	bool down;

	for (p = 0; p < nb_ports; p++) {
		down = rte_eth_link_get_nowait(p, &link) == 0 &&
		       link.link_status == RTE_ETH_LINK_DOWN;
		if (down && !l->down[p]) {
			l->downs[p]++;
			l->out_at_down[p] += sent[p] - witness_stream(w, p)->unique;
		}
		/* Line by line, as it happens: a test waits for these. */
		if (down != l->down[p])
			fprintf(stderr, "%s: port %u link %s\n", W_PROG, p, down ? "down" : "up");
		l->down[p] = down;
	}
}

static int
w_run(const struct w_conf *c, uint16_t nb_ports, struct rte_mempool *mp, uint64_t *warmup,
      const uint64_t *warmup_sent)
{
	uint64_t sent[W_MAX_PORTS] = { 0 }, written_off[W_MAX_PORTS] = { 0 };
	const struct rte_ether_addr bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};
	uint64_t hz = rte_get_timer_hz(), start, last_rx, paced, now, total, out, link_tsc;
	struct w_links links = { 0 };
	struct rte_mbuf *tx[W_MAX_BURST];
	struct witness_checker *w;
	struct witness_counts t;
	uint16_t p, i, n, k;
	bool all_sent;

	w = witness_checker_create(nb_ports, c->count, nb_ports);
	if (w == NULL) {
		fprintf(stderr, "%s: out of memory for the checker\n", W_PROG);
		return 1;
	}
	start = rte_get_timer_cycles();
	last_rx = start;
	paced = start;
	link_tsc = start;
	do {
		all_sent = true;
		for (p = 0; p < nb_ports; p++) {
			uint64_t back = witness_stream(w, p)->unique + written_off[p];

			if (sent[p] == c->count)
				continue;
			all_sent = false;
			if (sent[p] > back && sent[p] - back + c->burst > c->window)
				continue;
			n = (uint16_t)RTE_MIN((uint64_t)c->burst, c->count - sent[p]);
			for (i = 0; i < n; i++) {
				tx[i] = witness_frame(mp, &bcast, c->size, 1, p, sent[p] + i);
				if (tx[i] == NULL)
					break;
			}
			k = rte_eth_tx_burst(p, 0, tx, i);
			rte_pktmbuf_free_bulk(&tx[k], i - k);
			sent[p] += k;
		}
		now = rte_get_timer_cycles();
		if (now - link_tsc > W_LINK_CHECK_MS * hz / 1000) {
			w_links_check(&links, w, nb_ports, sent);
			link_tsc = now;
		}
		for (p = 0; p < nb_ports; p++)
			if (w_receive(p, w, warmup) != 0)
				last_rx = now;
		witness_total(w, &t);
		for (p = 0, total = 0; p < nb_ports; p++)
			total += sent[p];
		if (all_sent && t.unique >= total)
			break;
		if (now - RTE_MAX(last_rx, paced) > W_PACE_MS * hz / 1000) {
			for (p = 0; p < nb_ports; p++) {
				out = witness_stream(w, p)->unique + written_off[p];
				if (sent[p] > out)
					written_off[p] += sent[p] - out;
			}
			paced = now;
		}
	} while (!w_quit && !(all_sent && now - last_rx > (uint64_t)c->idle_ms * hz / 1000));
	w_report(w, nb_ports, sent, warmup, warmup_sent, &links, mp,
		 (double)(rte_get_timer_cycles() - start) / hz);
	witness_checker_free(w);
	return 0;
}

int
main(int argc, char **argv)
{
	struct rte_mempool *mp;
	struct w_conf conf;
	uint64_t warmup[W_MAX_PORTS] = { 0 }, warmup_sent[W_MAX_PORTS] = { 0 };
	uint16_t nb_ports, p;
	int eal_argc, ret, status = 1;
	char *no_args[] = { argv[0], NULL };

	for (eal_argc = 1; eal_argc < argc && strcmp(argv[eal_argc], "--") != 0; eal_argc++)
		;
	ret = eal_argc < argc ? w_parse_args(argc - eal_argc, argv + eal_argc, &conf) :
				w_parse_args(1, no_args, &conf);
	if (ret != 0)
		return 2;
	rte_openlog_stream(stderr);
	if (rte_eal_init(eal_argc, argv) < 0) {
		fprintf(stderr, "%s: cannot init EAL: %s\n", W_PROG, rte_strerror(rte_errno));
		return 1;
	}
	signal(SIGINT, w_on_signal);
	signal(SIGTERM, w_on_signal);
	nb_ports = rte_eth_dev_count_avail();
	if (nb_ports < 2 || nb_ports > W_MAX_PORTS || nb_ports % 2 != 0) {
		fprintf(stderr, "%s: needs 2 or 4 ports (--vdev), has %u\n", W_PROG, nb_ports);
		goto out;
	}
	mp = rte_pktmbuf_pool_create("witness", nb_ports * (2 * W_RING + 2 * W_MAX_BURST) + 512,
				     256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (mp == NULL) {
		fprintf(stderr, "%s: no mbufs: %s\n", W_PROG, rte_strerror(rte_errno));
		goto out;
	}
	for (p = 0; p < nb_ports; p++)
		if (w_port_start(p, mp) != 0)
			goto stop;
	if (!w_links_up(nb_ports, conf.link_timeout_s))
		goto stop;
	fprintf(stderr, "%s: running: %u ports, %" PRIu64 " frames each\n", W_PROG, nb_ports,
		conf.count);
	if (!w_warm_up(nb_ports, mp, conf.link_timeout_s, warmup, warmup_sent))
		goto stop;
	status = w_run(&conf, nb_ports, mp, warmup, warmup_sent);
stop:
	for (p = 0; p < nb_ports; p++) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
out:
	rte_eal_cleanup();
	return status;
}
