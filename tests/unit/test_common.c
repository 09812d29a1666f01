/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>

#include "test_common.h"

struct rte_mempool *test_pool;

int
test_port_create(const char *name, const char *args, uint16_t *port_id)
{
	int ret = rte_vdev_init(name, args);

	if (ret != 0)
		return ret;
	return rte_eth_dev_get_port_by_name(name, port_id);
}

void
test_port_destroy(const char *name)
{
	rte_vdev_uninit(name);
}

int
test_pair_create(const char *name_a, const char *name_b, uint16_t *a, uint16_t *b)
{
	char args[RTE_DEV_NAME_MAX_LEN + 128];
	int ret;

	const char *extra = getenv("REFNIC_TEST_DEVARGS");

	/* The first port's name makes the cable's: one cable per pair. Suites
	 * run again with other device settings (test.sh) name them here. */
	snprintf(args, sizeof(args), "cable=%s,%s", name_a,
		 extra != NULL ? extra : "profile=ideal");
	ret = test_port_create(name_a, args, a);
	if (ret != 0)
		return ret;
	ret = test_port_create(name_b, args, b);
	if (ret != 0)
		test_port_destroy(name_a);
	return ret;
}

void
test_pair_destroy(const char *name_a, const char *name_b)
{
	test_port_destroy(name_a);
	test_port_destroy(name_b);
}

int
test_port_start(uint16_t port_id, uint64_t rx_offloads, uint16_t mtu)
{
	return test_port_start_offloads(port_id, rx_offloads, 0, mtu);
}

int
test_port_start_offloads(uint16_t port_id, uint64_t rx_offloads, uint64_t tx_offloads,
			 uint16_t mtu)
{
	struct rte_eth_conf conf = {
		.rxmode = { .offloads = rx_offloads },
		.txmode = { .offloads = tx_offloads },
	};
	int ret;

	/* A started port is stopped first, so this also reconfigures. */
	rte_eth_dev_stop(port_id);
	ret = rte_eth_dev_configure(port_id, 1, 1, &conf);
	if (ret == 0 && mtu != 0)
		ret = rte_eth_dev_set_mtu(port_id, mtu);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port_id, 0, TEST_RING_SIZE, SOCKET_ID_ANY,
					     NULL, test_pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port_id, 0, TEST_RING_SIZE, SOCKET_ID_ANY, NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port_id);
	if (ret == 0)
		ret = rte_eth_promiscuous_enable(port_id);
	return ret;
}

void
test_hw_stats(const char *name, struct refnic_hw_stats *stats)
{
	struct refnic_emu *emu = refnic_emu_lookup(name);

	memset(stats, 0, sizeof(*stats));
	if (emu != NULL)
		refnic_emu_read_stats(emu, stats);
}

uint64_t
test_xstat(uint16_t port_id, const char *name)
{
	uint64_t id, value = UINT64_MAX;

	if (rte_eth_xstats_get_id_by_name(port_id, name, &id) == 0)
		rte_eth_xstats_get_by_id(port_id, &id, &value, 1);
	return value;
}

static uint8_t
payload_byte(uint32_t seed, uint32_t off)
{
	return (uint8_t)(seed * 31 + off * 7 + (off >> 8));
}

struct rte_mbuf *
test_make_pkt(const struct rte_ether_addr *dst, uint32_t len, uint32_t seed, uint16_t nb_segs)
{
	struct rte_mbuf *head = NULL, *last = NULL;
	uint32_t per_seg = (len + nb_segs - 1) / nb_segs, off = 0;
	uint16_t s;

	for (s = 0; s < nb_segs; s++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool);
		uint32_t n = RTE_MIN(per_seg, len - off), i;
		uint8_t *p;

		if (m == NULL || n > rte_pktmbuf_tailroom(m)) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		p = (uint8_t *)rte_pktmbuf_append(m, n);
		for (i = 0; i < n; i++)
			p[i] = payload_byte(seed, off + i);
		if (s == 0) {
			struct rte_ether_hdr *eh = (struct rte_ether_hdr *)p;

			rte_ether_addr_copy(dst, &eh->dst_addr);
			memset(&eh->src_addr, 0x02, sizeof(eh->src_addr));
			eh->ether_type = rte_cpu_to_be_16(TEST_ETHERTYPE);
			head = m;
		} else {
			last->next = m;
			head->nb_segs++;
			head->pkt_len += n;
		}
		last = m;
		off += n;
	}
	return head;
}

bool
test_pkt_matches(const struct rte_mbuf *m, const struct rte_ether_addr *dst,
		 uint32_t len, uint32_t seed)
{
	static uint8_t got[RTE_ETHER_MAX_JUMBO_FRAME_LEN];
	const struct rte_ether_hdr *eh;
	uint32_t i;

	if (m->pkt_len != len || len > sizeof(got))
		return false;
	eh = rte_pktmbuf_read(m, 0, len, got);
	if (!rte_is_same_ether_addr(&eh->dst_addr, dst) ||
	    eh->ether_type != rte_cpu_to_be_16(TEST_ETHERTYPE))
		return false;
	for (i = RTE_ETHER_HDR_LEN; i < len; i++)
		if (((const uint8_t *)eh)[i] != payload_byte(seed, i))
			return false;
	return true;
}

uint16_t
test_tx_all(uint16_t port_id, struct rte_mbuf **pkts, uint16_t n)
{
	return test_tx_all_queue(port_id, 0, pkts, n);
}

uint16_t
test_tx_all_queue(uint16_t port_id, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	uint16_t sent = 0, i;

	while (sent < n && rte_get_timer_cycles() < deadline)
		sent += rte_eth_tx_burst(port_id, queue, pkts + sent, n - sent);
	for (i = sent; i < n; i++)
		rte_pktmbuf_free(pkts[i]);
	return sent;
}

bool
test_link_wait(uint16_t port_id, uint16_t status)
{
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	struct rte_eth_link link;

	do {
		if (rte_eth_link_get_nowait(port_id, &link) == 0 && link.link_status == status)
			return true;
		rte_delay_ms(1);
	} while (rte_get_timer_cycles() < deadline);
	return false;
}

uint16_t
test_rx_wait_ms(uint16_t port_id, struct rte_mbuf **pkts, uint16_t n, unsigned int ms)
{
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() * ms / 1000;
	uint16_t got = 0;

	while (got < n && rte_get_timer_cycles() < deadline)
		got += rte_eth_rx_burst(port_id, 0, pkts + got, n - got);
	return got;
}

uint16_t
test_rx_wait(uint16_t port_id, struct rte_mbuf **pkts, uint16_t n)
{
	return test_rx_wait_ms(port_id, pkts, n, TEST_WAIT_S * 1000);
}

FILE *
test_log_capture_start(char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len - 1, "w");

	memset(buf, 0, len);
	if (f != NULL)
		rte_openlog_stream(f);
	return f;
}

unsigned int
test_log_count(const char *log, const char *needle, const char **last)
{
	unsigned int n = 0;
	const char *p;

	for (p = strstr(log, needle); p != NULL; p = strstr(p + 1, needle)) {
		if (last != NULL)
			*last = p;
		n++;
	}
	return n;
}

void
test_log_capture_stop(FILE *f)
{
	rte_openlog_stream(NULL);
	if (f != NULL)
		fclose(f);
}

uint64_t
test_hw_counter_wait(const char *name, size_t offset, uint64_t want)
{
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	struct refnic_hw_stats s;
	uint64_t v;

	do {
		test_hw_stats(name, &s);
		v = *(uint64_t *)RTE_PTR_ADD(&s, offset);
		if (v >= want)
			return v;
		rte_delay_us_sleep(50);
	} while (rte_get_timer_cycles() < deadline);
	return v;
}

void
unit_test_suite_run(const struct unit_test_suite *suite, struct test_totals *t)
{
	const struct unit_test_case *tc;

	printf("=== suite %s\n", suite->name);
	if (suite->setup != NULL && suite->setup() != TEST_SUCCESS) {
		for (tc = suite->cases; tc->name != NULL; tc++) {
			printf("FAIL %s.%s: suite setup failed\n", suite->name, tc->name);
			t->failed++;
		}
		return;
	}
	for (tc = suite->cases; tc->name != NULL; tc++) {
		int ret = TEST_SUCCESS;

		if (tc->setup != NULL)
			ret = tc->setup();
		if (ret == TEST_SUCCESS)
			ret = tc->run();
		if (tc->teardown != NULL)
			tc->teardown();
		if (ret == TEST_SUCCESS) {
			printf("PASS %s.%s\n", suite->name, tc->name);
			t->passed++;
		} else if (ret == TEST_SKIPPED) {
			printf("SKIP %s.%s\n", suite->name, tc->name);
			t->skipped++;
		} else {
			printf("FAIL %s.%s\n", suite->name, tc->name);
			t->failed++;
		}
		fflush(stdout);
	}
	if (suite->teardown != NULL)
		suite->teardown();
}
