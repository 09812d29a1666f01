/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * engines=N: a device's queues spread over N engine threads. Queue q is
 * served by engine q % N; every engine may deliver to any RX queue of the
 * far end, so all of them may fill the same RX queue at once.
 */

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

#define EN_A		"net_refnic_e0"
#define EN_B		"net_refnic_e1"
#define EN_ENGINES	2
#define EN_QUEUES	4

static uint16_t port_a, port_b;
static struct rte_ether_addr any_dst = {{ 0x02, 0, 0, 0, 0, 7 }};

/* Threads of this process whose name starts with "refnic-engine"; the
 * first one's id into *first, if asked. */
static unsigned int
engine_threads_scan(pid_t *first)
{
	struct dirent *de;
	unsigned int n = 0;
	char path[300], comm[32];
	DIR *dir = opendir("/proc/self/task");
	FILE *f;

	while (dir != NULL && (de = readdir(dir)) != NULL) {
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fgets(comm, sizeof(comm), f) != NULL &&
		    strncmp(comm, "refnic-engine", strlen("refnic-engine")) == 0 &&
		    n++ == 0 && first != NULL)
			*first = atoi(de->d_name);
		fclose(f);
	}
	if (dir != NULL)
		closedir(dir);
	return n;
}

static unsigned int
engine_threads(void)
{
	return engine_threads_scan(NULL);
}

#define EN_ARGS		"profile=ideal,exec=thread,queues=" RTE_STR(EN_QUEUES) \
			",engines=" RTE_STR(EN_ENGINES)

/* EN_QUEUES queue pairs, no RSS: every frame lands on RX queue 0. */
static const struct test_pair_conf en_pair = {
	.name_a = EN_A, .name_b = EN_B, .args_a = EN_ARGS, .nb_queues = EN_QUEUES,
	.conf = &(const struct rte_eth_conf){ .rxmode.mq_mode = RTE_ETH_MQ_RX_NONE },
};

static int
en_ports_start(uint64_t rx_offloads, uint64_t tx_offloads)
{
	struct rte_eth_conf conf = {
		.rxmode = { .mq_mode = RTE_ETH_MQ_RX_NONE, .offloads = rx_offloads },
		.txmode = { .offloads = tx_offloads },
	};
	struct test_pair_conf c = en_pair;

	c.conf = &conf;
	return test_pair_start(&c, port_a, port_b, NULL);
}

static int
en_setup(void)
{
	return test_pair_setup(&en_pair, &port_a, &port_b, NULL) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static void
en_teardown(void)
{
	test_pair_teardown(&en_pair);
}

#define EN_BURST	32		/* frames per TX queue per round */
#define EN_MAX_FRAMES	(600 * EN_QUEUES * EN_BURST)

/* The VLAN tag a frame is sent with, when tagging: derived from its seed. */
static uint16_t
en_tci(uint32_t seed)
{
	return 1 + seed % 4000;
}

/*
 * Rounds of bursts on all four TX queues of A, each round received before
 * the next (more would overflow B's ring); two engines deliver them into
 * B's RX queue 0 at once. en_traffic() returns how many arrived intact, each
 * once (and with their tag, when tagged by the device on TX and stripped on
 * RX); en_check() checks and frees what one round received.
 */
static unsigned int
en_check(struct rte_mbuf **rx, unsigned int n, unsigned int total, bool vlan, bool *seen)
{
	unsigned int i, intact = 0;
	uint32_t seed;

	for (i = 0; i < n; i++) {
		/* The frame length tells its seed's residue; find the seed. */
		for (seed = rx[i]->pkt_len - 64; seed < total; seed += 512) {
			if (!seen[seed] && test_pkt_matches(rx[i], &any_dst, 64 + seed % 512, seed) &&
			    (!vlan || ((rx[i]->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) &&
				       rx[i]->vlan_tci == en_tci(seed)))) {
				seen[seed] = true;
				intact++;
				break;
			}
		}
		rte_pktmbuf_free(rx[i]);
	}
	return intact;
}

static unsigned int
en_traffic(unsigned int rounds, bool vlan)
{
	static bool seen[EN_MAX_FRAMES];
	const unsigned int total = rounds * EN_QUEUES * EN_BURST;
	struct rte_mbuf *pkts[EN_BURST], *rx[EN_QUEUES * EN_BURST];
	unsigned int round, q, i, got, intact = 0;
	uint32_t seed;

	memset(seen, 0, sizeof(seen));
	for (round = 0; round < rounds; round++) {
		for (q = 0; q < EN_QUEUES; q++) {
			for (i = 0; i < EN_BURST; i++) {
				seed = (round * EN_QUEUES + q) * EN_BURST + i;
				pkts[i] = test_make_pkt(&any_dst, 64 + seed % 512, seed, 1 + vlan);
				if (pkts[i] != NULL && vlan) {
					pkts[i]->ol_flags |= RTE_MBUF_F_TX_VLAN;
					pkts[i]->vlan_tci = en_tci(seed);
				}
			}
			test_tx_all_queue(port_a, q, pkts, EN_BURST);
		}
		got = test_rx_wait(port_b, rx, RTE_DIM(rx));
		intact += en_check(rx, got, total, vlan, seen);
	}
	return intact;
}

/* Every frame arrives once and intact; each engine carried its own queues. */
static int
test_engines_share_an_rx_queue(void)
{
	const unsigned int rounds = 40;
	struct refnic_hw_stats e0, e1;
	unsigned int q;

	TEST_ASSERT_EQUAL(engine_threads(), EN_ENGINES, "engine threads running");
	TEST_ASSERT_EQUAL(en_traffic(rounds, false), rounds * EN_QUEUES * EN_BURST,
			  "frames intact, each once");
	TEST_ASSERT_SUCCESS(refnic_emu_read_engine_stats(refnic_emu_lookup(EN_A), 0, &e0), "");
	TEST_ASSERT_SUCCESS(refnic_emu_read_engine_stats(refnic_emu_lookup(EN_A), 1, &e1), "");
	for (q = 0; q < EN_QUEUES; q++) {
		const struct refnic_hw_stats *own = q % EN_ENGINES == 0 ? &e0 : &e1;
		const struct refnic_hw_stats *other = q % EN_ENGINES == 0 ? &e1 : &e0;

		TEST_ASSERT_EQUAL(own->q[q].tx_packets, rounds * EN_BURST,
				  "TX queue %u carried by engine %u", q, q % EN_ENGINES);
		TEST_ASSERT_EQUAL(other->q[q].tx_packets, 0, "TX queue %u carried twice", q);
	}
	return TEST_SUCCESS;
}

/*
 * The device rewrites frames in scratch memory (VLAN insert on TX, strip
 * on RX, two segments): each engine must have its own. Enough frames for
 * a shared scratch to show, when the engines run on two CPUs.
 */
static int
test_engines_offloads_in_parallel(void)
{
	const unsigned int rounds = EN_MAX_FRAMES / (EN_QUEUES * EN_BURST);

	TEST_ASSERT_SUCCESS(en_ports_start(RTE_ETH_RX_OFFLOAD_VLAN_STRIP,
					   RTE_ETH_TX_OFFLOAD_VLAN_INSERT |
					   RTE_ETH_TX_OFFLOAD_MULTI_SEGS), "");
	TEST_ASSERT_EQUAL(en_traffic(rounds, true), EN_MAX_FRAMES, "frames intact, each once");
	return TEST_SUCCESS;
}

/* The first engine thread's id, 0 if none. */
static pid_t
engine_tid(void)
{
	pid_t tid = 0;

	engine_threads_scan(&tid);
	return tid;
}

/* The times thread tid gave its CPU up by itself: slept (its status). */
static unsigned long
thread_sleeps(pid_t tid)
{
	unsigned long n = 0;
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "voluntary_ctxt_switches: %lu", &n) == 1)
			break;
	if (f != NULL)
		fclose(f);
	return n;
}

/* Another process's lcore, as the engine's CPU sees it: always runnable. */
struct en_hog {
	cpu_set_t cpus;
	bool stop;
};

static void *
en_hog_main(void *arg)
{
	struct en_hog *h = arg;

	pthread_setaffinity_np(pthread_self(), sizeof(h->cpus), &h->cpus);
	while (!__atomic_load_n(&h->stop, __ATOMIC_RELAXED))
		rte_pause();
	return NULL;
}

/* A frame sent every millisecond for ms, which the engine carries
 * (exec=thread), the last one drained. Returns how many were sent. Admin
 * commands would not do: the storing thread runs them. */
static unsigned int
en_frames_for_ms(unsigned int ms)
{
	uint64_t end = rte_get_timer_cycles() + ms * rte_get_timer_hz() / 1000;
	struct rte_mbuf *pkt, *rx[EN_BURST];
	unsigned int n = 0;
	uint16_t got;

	while (rte_get_timer_cycles() < end) {
		pkt = test_make_pkt(&any_dst, 64, n, 1);
		if (pkt != NULL)
			n += test_tx_all_queue(port_a, 0, &pkt, 1);
		rte_delay_us_sleep(1000);
		got = rte_eth_rx_burst(port_b, 0, rx, RTE_DIM(rx));
		rte_pktmbuf_free_bulk(rx, got);
	}
	return n;
}

/*
 * An engine on a CPU no lcore of this process uses may still share it
 * (another process's lcores poll it): it must then give the CPU up as soon
 * as it is idle, not poll on for milliseconds after each piece of work. A
 * busy thread on the engine's CPU and a frame for the engine to carry every
 * millisecond: once it has noticed, the engine sleeps after every frame;
 * one that polls 2 ms after its work sleeps after about half (gaps of 1 to
 * 2+ ms).
 * Counted in sleeps, not CPU time: a sanitizer's build works slower, it
 * does not sleep less.
 */
static int
test_engines_yield_a_busy_cpu(void)
{
	struct en_hog hog = { .stop = false };
	pid_t tid = engine_tid();
	unsigned long sleeps;
	unsigned int frames;
	pthread_t th;

	TEST_ASSERT(tid > 0, "no engine thread");
	TEST_ASSERT_SUCCESS(sched_getaffinity(tid, sizeof(hog.cpus), &hog.cpus), "");
	TEST_ASSERT_SUCCESS(pthread_create(&th, NULL, en_hog_main, &hog), "");
	en_frames_for_ms(300);			/* it notices */
	sleeps = thread_sleeps(tid);
	frames = en_frames_for_ms(500);
	sleeps = thread_sleeps(tid) - sleeps;
	__atomic_store_n(&hog.stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	printf("    engine slept %lu times over %u frames beside a busy thread\n",
	       sleeps, frames);
	TEST_ASSERT(frames >= 100, "only %u frames sent", frames);
	/* Polling, it slept after half of them (timer slack stretches the
	 * gaps past its 2 ms at times). Yielding, after nearly each: fewer on
	 * a loaded machine, where it may find two frames at one wake-up (seen:
	 * 0.87 with a sanitizer build and a busy neighbour). */
	TEST_ASSERT(sleeps * 10 >= frames * 7, "the engine polled a CPU another thread wants");
	return TEST_SUCCESS;
}

/* The engines stop with the last device; a bad count fails the probe. */
static int
test_engines_devarg(void)
{
	uint16_t port;

	unsigned int i;

	en_teardown();
	/* Joined threads leave /proc a moment later. */
	for (i = 0; i < 1000 && engine_threads() != 0; i++)
		rte_delay_ms(5);
	TEST_ASSERT_EQUAL(engine_threads(), 0, "engines left running");
	TEST_ASSERT(test_port_create("net_refnic_e2", "engines=9", &port) != 0, "engines=9");
	TEST_ASSERT(test_port_create("net_refnic_e2", "engines=0", &port) != 0, "engines=0");
	TEST_ASSERT(refnic_emu_lookup("net_refnic_e2") == NULL, "a device was left");
	return en_setup();
}

const struct unit_test_suite refnic_engines_suite = {
	.name = "engines",
	.setup = en_setup,
	.teardown = en_teardown,
	.cases = {
		TEST_CASE(test_engines_share_an_rx_queue),
		TEST_CASE(test_engines_offloads_in_parallel),
		TEST_CASE(test_engines_yield_a_busy_cpu),
		TEST_CASE(test_engines_devarg),
		TEST_CASES_END()
	},
};
