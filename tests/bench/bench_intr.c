/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * An interrupt-driven receiver at several offered rates, with interrupt
 * moderation off, static and adaptive, side by side in one run.
 *
 *   refnic-bench-intr [seconds] [profile] [static_us] [rates] [modes]
 *
 * rates, modes: the offered rates and moderation modes to run, by name,
 * joined by commas (default all; perf record of one mode, for instance).
 * Each rate runs off, static and adaptive back to back (interleaved), each
 * on a pair of its own, so that a machine whose load changes meanwhile
 * moves the three alike.
 * Two refnic ports wired back to back in one process, every CPU an lcore
 * (-l 0-1, as users type it): a sender on lcore 1 stamps each frame with
 * the TSC and paces itself (low, medium, high) or sends as fast as it can
 * (unpaced); the receiver on the main lcore runs l3fwd-power's loop
 * (poll until empty, arm, rte_epoll_wait, disarm). Per run: frames received
 * per second, interrupts per second (the device's count), wake-ups, latency
 * from stamp to receive (p50, p99), and the receiver's CPU time; then the
 * receiver alone, idle, for its CPU time asleep.
 *
 * Prints a markdown table, the moderation targets as ratios (throughput,
 * interrupts, latency and idle CPU against moderation off), and
 * one JSON line per run.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "rte_pmd_refnic.h"

#define PORT_A		"net_refnic_ib0"
#define PORT_B		"net_refnic_ib1"
#define RING		1024
#define BURST		32
#define ETHERTYPE	0x88b5
#define HIST_NS		100		/* latency histogram: 100 ns buckets */
#define HIST_BUCKETS	100000		/* up to 10 ms; above: the last one */
#define WAIT_MS		10		/* epoll timeout: the loop checks for the end */

static const struct {
	const char *name;
	uint32_t pps;			/* 0: as fast as the sender can */
} rates[] = {
	{ "low", 10000 },
	{ "medium", 100000 },
	{ "high", 1000000 },	/* about what one receiver takes: the targets' "saturation" */
	{ "unpaced", 0 },	/* beyond it: the receiver never sleeps, drops */
};

#define RATE_LOW	0	/* rates[] entries the targets compare at */
#define RATE_HIGH	2
#define RATE_UNPACED	3	/* saturation: the receiver never keeps up */

enum mode { MODE_OFF, MODE_STATIC, MODE_ADAPTIVE, NB_MODES };
static const char * const mode_names[NB_MODES] = { "off", "static", "adaptive" };

struct run {
	double rx_pps;
	double intr_per_s;
	double wakes_per_s;
	uint64_t timeouts;		/* sleeps that ended with no interrupt */
	double p50_us, p99_us;
	double cpu_pct;
	uint64_t sent, received;
	uint64_t no_buffer;		/* dropped by the device: no posted buffer */
	uint64_t missed_while_held;	/* ... while the interrupt was held */
	uint32_t itr_us;		/* the interval at the end */
	bool done;
};

static struct rte_mempool *pool;
static uint16_t port_a, port_b;
static uint32_t hist[HIST_BUCKETS];

struct sender {
	uint32_t pps;
	uint64_t end_tsc;
	uint64_t sent;
	volatile bool done;
};

static int
send_loop(void *arg)
{
	struct sender *s = arg;
	uint64_t hz = rte_get_tsc_hz(), next = rte_get_tsc_cycles();
	unsigned int burst = s->pps == 0 ? BURST : 1;
	uint64_t gap = s->pps == 0 ? 0 : hz / s->pps;
	struct rte_ether_addr dst;
	struct rte_mbuf *m[BURST];
	unsigned int i, k;

	rte_eth_macaddr_get(port_b, &dst);
	while (rte_get_tsc_cycles() < s->end_tsc) {
		if (gap != 0) {
			while (rte_get_tsc_cycles() < next)
				;
			next += gap;
		}
		if (rte_pktmbuf_alloc_bulk(pool, m, burst) != 0)
			continue;
		for (i = 0; i < burst; i++) {
			struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m[i], struct rte_ether_hdr *);
			uint8_t *p = (uint8_t *)(eh + 1);

			m[i]->data_len = m[i]->pkt_len = 64;
			eh->dst_addr = dst;
			eh->src_addr = dst;
			eh->ether_type = rte_cpu_to_be_16(ETHERTYPE);
			*(uint64_t *)p = rte_get_tsc_cycles();
		}
		k = rte_eth_tx_burst(port_a, 0, m, burst);
		if (k < burst)
			rte_pktmbuf_free_bulk(m + k, burst - k);
		s->sent += k;
	}
	s->done = true;
	return 0;
}

static uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0 ||
	    rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return 0;
	return v;
}

static uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static double
percentile(uint64_t n, double pct)
{
	uint64_t want = (uint64_t)(n * pct / 100.0), seen = 0;
	unsigned int b;

	for (b = 0; b < HIST_BUCKETS; b++) {
		seen += hist[b];
		if (seen > want)
			return (b + 0.5) * HIST_NS / 1000.0;
	}
	return HIST_BUCKETS * HIST_NS / 1000.0;
}

/* Receive until the sender is done and the queue is empty. */
static void
receive(struct sender *s, struct run *r, uint64_t *wakes, uint64_t *timeouts)
{
	uint64_t ns_per_tsc_q16 = (1000000000ull << 16) / rte_get_tsc_hz();
	struct rte_epoll_event ev;
	struct rte_mbuf *m[BURST];
	uint16_t n, i;

	for (;;) {
		while ((n = rte_eth_rx_burst(port_b, 0, m, BURST)) != 0) {
			uint64_t now = rte_get_tsc_cycles();

			for (i = 0; i < n; i++) {
				uint8_t *p = rte_pktmbuf_mtod_offset(m[i], uint8_t *,
								     sizeof(struct rte_ether_hdr));
				uint64_t ns = ((now - *(uint64_t *)p) * ns_per_tsc_q16) >> 16;

				hist[RTE_MIN(ns / HIST_NS, (uint64_t)HIST_BUCKETS - 1)]++;
			}
			rte_pktmbuf_free_bulk(m, n);
			r->received += n;
		}
		if (s->done && rte_eth_rx_queue_count(port_b, 0) == 0)
			break;
		rte_eth_dev_rx_intr_enable(port_b, 0);
		if (rte_epoll_wait(RTE_EPOLL_PER_THREAD, &ev, 1, WAIT_MS) > 0)
			(*wakes)++;
		else if (!s->done)
			(*timeouts)++;
		rte_eth_dev_rx_intr_disable(port_b, 0);
	}
}

static int
port_setup(uint16_t port)
{
	struct rte_eth_conf conf = { .intr_conf = { .rxq = 1 } };
	int ret = rte_eth_dev_configure(port, 1, 1, &conf);

	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, RING, SOCKET_ID_ANY, NULL, pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, RING, SOCKET_ID_ANY, NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret == 0)
		ret = rte_eth_promiscuous_enable(port);
	return ret;
}

static int
pair_create(const char *profile, enum mode mode, unsigned int static_us)
{
	char args[128], mod[32];
	int ret;

	if (mode == MODE_STATIC)
		snprintf(mod, sizeof(mod), "rx_itr_us=%u", static_us);
	else
		snprintf(mod, sizeof(mod), "itr=%s", mode_names[mode]);
	snprintf(args, sizeof(args), "cable=%s,profile=%s,%s", PORT_A, profile, mod);
	if (rte_vdev_init(PORT_A, args) != 0 || rte_vdev_init(PORT_B, args) != 0 ||
	    rte_eth_dev_get_port_by_name(PORT_A, &port_a) != 0 ||
	    rte_eth_dev_get_port_by_name(PORT_B, &port_b) != 0)
		return -1;
	ret = port_setup(port_a);
	if (ret == 0)
		ret = port_setup(port_b);
	if (ret == 0)
		ret = rte_eth_dev_rx_intr_ctl_q(port_b, 0, RTE_EPOLL_PER_THREAD,
						RTE_INTR_EVENT_ADD, NULL);
	return ret;
}

static void
pair_destroy(void)
{
	rte_eth_dev_rx_intr_ctl_q(port_b, 0, RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_DEL, NULL);
	rte_eth_dev_stop(port_a);
	rte_eth_dev_stop(port_b);
	rte_eth_dev_close(port_a);
	rte_eth_dev_close(port_b);
	rte_vdev_uninit(PORT_A);
	rte_vdev_uninit(PORT_B);
}

static void
run_rate(uint32_t pps, double seconds, struct run *r)
{
	uint64_t hz = rte_get_tsc_hz(), wakes = 0, timeouts = 0, t0, cpu0, intr0, nobuf0, held0;
	struct sender s = { .pps = pps };
	double wall;

	memset(r, 0, sizeof(*r));
	memset(hist, 0, sizeof(hist));
	intr0 = xstat(port_b, "rx_q0_interrupts");
	nobuf0 = xstat(port_b, "rx_q0_no_buffer");
	held0 = xstat(port_b, "rx_q0_missed_while_held");
	cpu0 = thread_cpu_ns();
	t0 = rte_get_tsc_cycles();
	s.end_tsc = t0 + (uint64_t)(seconds * hz);
	rte_eal_remote_launch(send_loop, &s, rte_get_next_lcore(-1, 1, 0));
	receive(&s, r, &wakes, &timeouts);
	rte_eal_mp_wait_lcore();
	wall = (double)(rte_get_tsc_cycles() - t0) / hz;
	r->sent = s.sent;
	r->rx_pps = r->received / wall;
	r->intr_per_s = (xstat(port_b, "rx_q0_interrupts") - intr0) / wall;
	r->no_buffer = xstat(port_b, "rx_q0_no_buffer") - nobuf0;
	r->missed_while_held = xstat(port_b, "rx_q0_missed_while_held") - held0;
	r->done = true;
	r->wakes_per_s = wakes / wall;
	r->timeouts = timeouts;
	r->cpu_pct = (thread_cpu_ns() - cpu0) / 1e7 / wall;
	r->p50_us = percentile(r->received, 50);
	r->p99_us = percentile(r->received, 99);
	rte_pmd_refnic_rx_itr_get(port_b, 0, &r->itr_us);
}

/* The receiver's loop with nothing to receive: its share of a CPU. */
static double
run_idle(double seconds)
{
	uint64_t hz = rte_get_tsc_hz(), cpu0 = thread_cpu_ns(), t0 = rte_get_tsc_cycles();
	uint64_t end = t0 + (uint64_t)(seconds * hz);
	struct rte_epoll_event ev;
	struct rte_mbuf *m[BURST];
	uint16_t n;

	while (rte_get_tsc_cycles() < end) {
		n = rte_eth_rx_burst(port_b, 0, m, BURST);
		rte_pktmbuf_free_bulk(m, n);
		rte_eth_dev_rx_intr_enable(port_b, 0);
		rte_epoll_wait(RTE_EPOLL_PER_THREAD, &ev, 1, WAIT_MS);
		rte_eth_dev_rx_intr_disable(port_b, 0);
	}
	return (thread_cpu_ns() - cpu0) / 1e7 / ((double)(rte_get_tsc_cycles() - t0) / hz);
}

static bool
rate_wanted(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	if (list == NULL)
		return true;
	for (p = list; (p = strstr(p, name)) != NULL; p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

static double
ratio(double a, double b)
{
	return b > 0 ? a / b : 0.0;
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0], "--no-huge", "-m", "1024", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0-1", "--log-level=pmd.net.refnic.*:warning",
			NULL };
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	const char *profile = argc > 2 ? argv[2] : "ideal";
	unsigned int static_us = argc > 3 ? atoi(argv[3]) : 100;
	const char *wanted = argc > 4 ? argv[4] : NULL;
	const char *modes = argc > 5 ? argv[5] : NULL;
	static struct run res[NB_MODES][RTE_DIM(rates)];
	double idle[NB_MODES] = { 0 };
	bool run_all = wanted == NULL && modes == NULL;
	unsigned int m, k;

	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0 || rte_lcore_count() < 2) {
		fprintf(stderr, "EAL init failed (two lcores needed)\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("bench_intr", 16383, 256, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (pool == NULL)
		return 1;
	/* Interleaved: the three modes of a rate one after the other. */
	for (k = 0; k < RTE_DIM(rates); k++) {
		if (!rate_wanted(wanted, rates[k].name))
			continue;
		for (m = 0; m < NB_MODES; m++) {
			if (!rate_wanted(modes, mode_names[m]))
				continue;
			if (pair_create(profile, m, static_us) != 0) {
				fprintf(stderr, "cannot set up the %s pair\n", mode_names[m]);
				return 1;
			}
			run_rate(rates[k].pps, seconds, &res[m][k]);
			pair_destroy();
		}
	}
	for (m = 0; run_all && m < NB_MODES; m++) {
		if (pair_create(profile, m, static_us) != 0)
			return 1;
		idle[m] = run_idle(seconds);
		pair_destroy();
	}

	printf("| moderation | offered | sent pps | received pps | vs off | no buffer | "
	       "of which while held | interrupts/s | wake-ups/s | sleeps timed out | "
	       "p50 us | p99 us | receiver CPU %% | interval at end us |\n");
	printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (k = 0; k < RTE_DIM(rates); k++) {
		for (m = 0; m < NB_MODES; m++) {
			const struct run *r = &res[m][k];
			double wall = r->rx_pps > 0 ? r->received / r->rx_pps : seconds;

			if (!r->done)
				continue;
			printf("| %s | %s | %.0f | %.0f | %.2fx | %" PRIu64 " | %" PRIu64
			       " | %.0f | %.0f | %" PRIu64 " | %.1f | %.1f | %.1f | %u |\n",
			       mode_names[m], rates[k].name, r->sent / wall, r->rx_pps,
			       ratio(r->rx_pps, res[MODE_OFF][k].rx_pps), r->no_buffer,
			       r->missed_while_held, r->intr_per_s, r->wakes_per_s, r->timeouts,
			       r->p50_us,
			       r->p99_us, r->cpu_pct, r->itr_us);
		}
	}
	for (m = 0; run_all && m < NB_MODES; m++)
		printf("| %s | idle | - | 0 | - | - | - | - | - | - | - | - | %.2f | - |\n",
		       mode_names[m], idle[m]);
	printf("\nstatic interval: %u us; profile %s; %.1f s per run\n", static_us, profile,
	       seconds);
	k = RATE_UNPACED;
	for (m = MODE_STATIC; m < NB_MODES && res[m][k].done; m++)
		printf("saturation (unpaced), %s vs off: throughput %.2fx (target >= %s), "
		       "%" PRIu64 " frames lost to a held interrupt (target 0)\n", mode_names[m],
		       ratio(res[m][k].rx_pps, res[MODE_OFF][k].rx_pps),
		       strcmp(profile, "vm") == 0 ? "1.00x" : "0.90x",
		       res[m][k].missed_while_held);
	k = RATE_HIGH;
	for (m = MODE_STATIC; m < NB_MODES && res[m][k].done; m++)
		printf("high rate, %s vs off: %.1fx fewer interrupts (target >= 5x), "
		       "throughput %.2fx (target >= 0.90x)\n", mode_names[m],
		       ratio(res[MODE_OFF][k].intr_per_s, res[m][k].intr_per_s),
		       ratio(res[m][k].rx_pps, res[MODE_OFF][k].rx_pps));
	k = RATE_LOW;
	if (res[MODE_ADAPTIVE][k].done)
		printf("low load, adaptive vs off: p50 %.2fx (target <= 1.10x), p99 %.2fx\n",
		       ratio(res[MODE_ADAPTIVE][k].p50_us, res[MODE_OFF][k].p50_us),
		       ratio(res[MODE_ADAPTIVE][k].p99_us, res[MODE_OFF][k].p99_us));
	for (m = 0; run_all && m < NB_MODES; m++)
		printf("idle receiver, %s: %.2f%% of a CPU (target < 1%%)\n", mode_names[m],
		       idle[m]);
	for (k = 0; k < RTE_DIM(rates); k++)
		for (m = 0; m < NB_MODES; m++)
			if (res[m][k].done)
				printf("{\"moderation\": \"%s\", \"offered\": \"%s\", "
				       "\"rx_pps\": %.0f, \"interrupts_per_s\": %.0f, "
				       "\"p50_us\": %.2f, \"p99_us\": %.2f, \"cpu_pct\": %.2f, "
				       "\"sent\": %" PRIu64 ", \"received\": %" PRIu64 ", "
				       "\"no_buffer\": %" PRIu64 ", \"missed_while_held\": %"
				       PRIu64 "}\n", mode_names[m], rates[k].name,
				       res[m][k].rx_pps, res[m][k].intr_per_s, res[m][k].p50_us,
				       res[m][k].p99_us, res[m][k].cpu_pct, res[m][k].sent,
				       res[m][k].received, res[m][k].no_buffer,
				       res[m][k].missed_while_held);
	rte_eal_cleanup();
	return 0;
}
