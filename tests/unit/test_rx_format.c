/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The two RX completion formats (refnic_hw.h, REFNIC_QCREATE_RX_WB): a
 * completion ring beside the descriptors (the default), or completions
 * written back over the descriptors (rx_wb=on). Each way the frames
 * arrive whole and counted; the witness of the format in use is the queue's
 * memory itself, where the contract says the device writes.
 */

#include <rte_memzone.h>

#include "test_common.h"

#define RXF_A		"net_refnic_rxf_a"
#define RXF_B		"net_refnic_rxf_b"
#define RXF_RING	64	/* small: many laps, every slot used */
#define RXF_FRAMES	(5 * RXF_RING + 17)
/* With the device on its own thread, polled while it writes: a completion
 * taken before it is whole, or a slot taken again, shows among these. */
#define RXF_MANY	200000
#define RXF_LEN		80

/* The port's RX queue 0 memory: descriptors, then the completion ring's room. */
static const struct rte_memzone *
rxf_queue_mem(uint16_t port)
{
	char name[RTE_MEMZONE_NAMESIZE];

	/* ethdev's name for rte_eth_dma_zone_reserve(dev, "rx_ring", 0, ...). */
	snprintf(name, sizeof(name), "eth_p%u_q0_rx_ring", port);
	return rte_memzone_lookup(name);
}

/* Slots of ring holding a completion of theirs: done byte set, own index. */
static unsigned int
rxf_completions_in(const struct refnic_rx_cpl *ring, bool phase_set)
{
	unsigned int i, n = 0;

	for (i = 0; i < RXF_RING; i++)
		if (ring[i].desc_idx == i && ring[i].len == RXF_LEN &&
		    (!phase_set || ring[i].phase == REFNIC_PHASE_BIT))
			n++;
	return n;
}

/* Sends count frames a -> b in bursts of 1 to 32; all must arrive intact. */
static int
rxf_traffic(uint16_t a, uint16_t b, const struct rte_ether_addr *mac, unsigned int count,
	    uint32_t seed)
{
	struct rte_mbuf *tx[TEST_BURST], *rx[TEST_BURST];
	unsigned int sent = 0, burst = 1;

	while (sent < count) {
		uint16_t n = RTE_MIN(burst, count - sent), got = 0, i;

		for (i = 0; i < n; i++) {
			tx[i] = test_make_pkt(mac, RXF_LEN, seed + sent + i, 1);
			TEST_ASSERT(tx[i] != NULL, "frame %u", sent + i);
		}
		TEST_ASSERT_EQUAL(test_tx_all(a, tx, n), n, "sent");
		while (got < n) {
			uint16_t r = test_rx_wait(b, rx, n - got);

			TEST_ASSERT(r > 0, "frame %u never arrived", sent + got);
			for (i = 0; i < r; i++) {
				bool ok = test_pkt_matches(rx[i], mac, RXF_LEN,
							   seed + sent + got + i);

				rte_pktmbuf_free(rx[i]);
				TEST_ASSERT(ok, "frame %u arrived altered", sent + got + i);
			}
			got += r;
		}
		sent += n;
		burst = burst % TEST_BURST + 1;
	}
	return TEST_SUCCESS;
}

static int
rxf_pair(struct test_pair_conf *pair, const char *args, uint16_t *a, uint16_t *b,
	 struct rte_ether_addr *mac)
{
	memset(pair, 0, sizeof(*pair));
	pair->name_a = RXF_A;
	pair->name_b = RXF_B;
	pair->args_a = args;
	pair->rx_ring = RXF_RING;
	pair->tx_ring = RXF_RING;
	return test_pair_setup(pair, a, b, mac);
}

/*
 * frames over many laps of a 64-slot ring, with devargs args: exact and
 * intact; then where the device wrote the completions.
 */
static int
rxf_format_case(const char *args, bool written_back, unsigned int frames)
{
	const uint8_t zero[RXF_RING * sizeof(struct refnic_rx_cpl)] = { 0 };
	const struct refnic_rx_cpl *ring, *cq;
	struct test_pair_conf pair;
	const struct rte_memzone *mz;
	struct rte_ether_addr mac;
	struct rte_eth_stats st;
	uint16_t a, b;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(rxf_pair(&pair, args, &a, &b, &mac), "pair (%s)", args);
	if (rxf_traffic(a, b, &mac, frames, 7) != TEST_SUCCESS)
		goto out;
	if (rte_eth_stats_get(b, &st) != 0 || st.ipackets != frames || st.ierrors != 0) {
		printf("ipackets %" PRIu64 " ierrors %" PRIu64 ", want %u and 0\n",
		       st.ipackets, st.ierrors, frames);
		goto out;
	}
	mz = rxf_queue_mem(b);
	if (mz == NULL) {
		printf("no RX ring memzone for port %u\n", b);
		goto out;
	}
	ring = mz->addr;
	cq = ring + RXF_RING;
	if (written_back) {
		/* Nothing in the completion ring's room; the slots consumed and
		 * not posted again (at least the one kept empty) hold theirs. */
		if (memcmp(cq, zero, sizeof(zero)) != 0 || rxf_completions_in(ring, true) == 0) {
			printf("written back: completion ring %s, %u completions in the "
			       "descriptors\n", memcmp(cq, zero, sizeof(zero)) ? "written" : "clean",
			       rxf_completions_in(ring, true));
			goto out;
		}
	} else {
		/* Every slot of the ring completed its own descriptor; no
		 * descriptor was written over. */
		if (rxf_completions_in(cq, false) != RXF_RING || rxf_completions_in(ring, false) != 0) {
			printf("ring: %u of %u completions, %u descriptors written over\n",
			       rxf_completions_in(cq, false), RXF_RING,
			       rxf_completions_in(ring, false));
			goto out;
		}
	}
	ret = TEST_SUCCESS;
out:
	test_pair_teardown(&pair);
	return ret;
}

static int
test_rx_written_back(void)
{
	return rxf_format_case("profile=ideal,rx_wb=on", true, RXF_FRAMES);
}

static int
test_rx_written_back_device_thread(void)
{
	return rxf_format_case("profile=ideal,exec=thread,rx_wb=on", true, RXF_MANY);
}

static int
test_rx_completion_ring_device_thread(void)
{
	return rxf_format_case("profile=ideal,exec=thread", false, RXF_MANY);
}

/* The default. */
static int
test_rx_completion_ring(void)
{
	return rxf_format_case("profile=ideal", false, RXF_FRAMES);
}

/* A device without the capability: the ring, as with any other. */
static int
test_rx_ring_without_the_capability(void)
{
	return rxf_format_case("profile=ideal,caps_off=rx_wb,rx_wb=off", false, RXF_FRAMES);
}

/* ... and rx_wb=on there: a start that fails and says why. */
static int
test_rx_wb_on_needs_the_capability(void)
{
	struct test_pair_conf pair = {
		.name_a = RXF_A, .name_b = RXF_B,
		.args_a = "profile=ideal,caps_off=rx_wb,rx_wb=on",
		.rx_ring = RXF_RING, .tx_ring = RXF_RING,
	};
	char log[8192];
	uint16_t a, b;
	FILE *cap;
	int ret;

	TEST_ASSERT_SUCCESS(test_pair_probe(&pair, &a, &b), "probe");
	cap = test_log_capture_start(log, sizeof(log));
	ret = test_port_setup(a, NULL, 1, RXF_RING, RXF_RING, NULL);
	test_log_capture_stop(cap);
	rte_eth_dev_stop(a);
	test_pair_destroy(RXF_A, RXF_B);
	TEST_ASSERT_EQUAL(ret, -ENOTSUP, "start: %d", ret);
	TEST_ASSERT(test_log_has(log, "rx_wb=on, but the device does not write completions back"),
		    "the reason, in the log:\n%s", log);
	return TEST_SUCCESS;
}

/*
 * A ring received to its tail with no buffer to post again: written back,
 * the slot at the tail still holds the completion it got a lap before (the
 * done bit does not alternate). Nothing is read there: no frame out of
 * nowhere, no error, and the queue goes on once buffers come back.
 */
static int
rxf_drained_case(const char *args)
{
	static struct rte_mbuf *held[512];
	struct rte_mempool *pool;
	struct test_pair_conf pair;
	struct rte_ether_addr mac;
	struct rte_mbuf *rx[TEST_BURST];
	struct rte_eth_stats st;
	unsigned int nb_held = 0, posted = 0, i;
	uint16_t a, b;
	int ret = TEST_FAILED;

	pool = rte_pktmbuf_pool_create("rxf_pool", 256, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	TEST_ASSERT(pool != NULL, "pool");
	if (rxf_pair(&pair, args, &a, &b, &mac) != 0) {
		rte_mempool_free(pool);
		TEST_ASSERT(false, "pair (%s)", args);
	}
	/* test_pair_setup() started B on test_pool: again on ours. */
	if (test_port_setup(b, NULL, 1, RXF_RING, RXF_RING, pool) != 0)
		goto out;
	/* Every slot written back at least once. */
	if (rxf_traffic(a, b, &mac, 3 * RXF_RING + 5, 11) != TEST_SUCCESS)
		goto out;
	/* The pool emptied: the queue cannot post again. */
	while (nb_held < RTE_DIM(held) && (held[nb_held] = rte_pktmbuf_alloc(pool)) != NULL)
		nb_held++;
	while (posted < RXF_RING &&
	       rte_eth_rx_descriptor_status(b, 0, posted) == RTE_ETH_RX_DESC_AVAIL)
		posted++;
	if (posted == 0 || posted >= RXF_RING) {
		printf("%u buffers posted\n", posted);
		goto out;
	}
	/* Each posted buffer gets a frame, all held: the ring runs dry. */
	for (i = 0; i < posted; i++) {
		struct rte_mbuf *m = test_make_pkt(&mac, RXF_LEN, 100 + i, 1);

		if (m == NULL || test_tx_all(a, &m, 1) != 1)
			goto out;
	}
	while (nb_held < RTE_DIM(held) && i > 0) {
		uint16_t got = test_rx_wait_ms(b, rx, RTE_MIN(i, (unsigned int)TEST_BURST), 1000);

		if (got == 0)
			break;
		memcpy(&held[nb_held], rx, got * sizeof(rx[0]));
		nb_held += got;
		i -= got;
	}
	if (i != 0) {
		printf("%u of %u frames did not arrive\n", i, posted);
		goto out;
	}
	/* At its tail now: nothing more to read, however often asked. */
	for (i = 0; i < 100; i++) {
		if (rte_eth_rx_burst(b, 0, rx, TEST_BURST) != 0) {
			printf("a frame from a slot never posted again\n");
			goto out;
		}
	}
	if (rte_eth_stats_get(b, &st) != 0 || st.ierrors != 0) {
		printf("ierrors %" PRIu64 ": the slot read as a bad completion\n", st.ierrors);
		goto out;
	}
	rte_pktmbuf_free_bulk(held, nb_held);
	nb_held = 0;
	/* Buffers back: the next burst posts them, frames flow again. */
	(void)rte_eth_rx_burst(b, 0, rx, TEST_BURST);
	if (rxf_traffic(a, b, &mac, 2 * RXF_RING, 200) != TEST_SUCCESS)
		goto out;
	ret = TEST_SUCCESS;
out:
	rte_pktmbuf_free_bulk(held, nb_held);
	rte_eth_dev_stop(b);
	test_pair_teardown(&pair);
	rte_mempool_free(pool);
	return ret;
}

static int
test_rx_written_back_drained(void)
{
	return rxf_drained_case("profile=ideal,rx_wb=on");
}

static int
test_rx_ring_drained(void)
{
	return rxf_drained_case("profile=ideal");
}

const struct unit_test_suite refnic_rx_format_suite = {
	.name = "rx_format",
	.cases = {
		TEST_CASE(test_rx_written_back),
		TEST_CASE(test_rx_completion_ring),
		TEST_CASE(test_rx_written_back_device_thread),
		TEST_CASE(test_rx_completion_ring_device_thread),
		TEST_CASE(test_rx_ring_without_the_capability),
		TEST_CASE(test_rx_wb_on_needs_the_capability),
		TEST_CASE(test_rx_written_back_drained),
		TEST_CASE(test_rx_ring_drained),
		TEST_CASES_END()
	},
};
