/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "../xstat.h"
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
test_pair_probe(const struct test_pair_conf *c, uint16_t *a, uint16_t *b)
{
	const char *env = getenv("REFNIC_TEST_DEVARGS");
	const char *dflt = env != NULL ? env : "profile=ideal";
	char args[RTE_DEV_NAME_MAX_LEN + 256];
	int ret;

	/* The first port's name makes the cable's: one cable per pair. Suites
	 * run again with other device settings (test.sh) name them here. */
	snprintf(args, sizeof(args), "cable=%s,%s", c->name_a,
		 c->args_a != NULL ? c->args_a : dflt);
	ret = test_port_create(c->name_a, args, a);
	if (ret != 0)
		return ret;
	snprintf(args, sizeof(args), "cable=%s,%s", c->name_a,
		 c->args_b != NULL ? c->args_b : c->args_a != NULL ? c->args_a : dflt);
	ret = test_port_create(c->name_b, args, b);
	if (ret != 0)
		test_port_destroy(c->name_a);
	return ret;
}

int
test_pair_start(const struct test_pair_conf *c, uint16_t a, uint16_t b,
		struct rte_ether_addr *mac_b)
{
	uint16_t rx_ring = c->rx_ring != 0 ? c->rx_ring : TEST_RING_SIZE;
	uint16_t rx_ring_b = c->rx_ring_b != 0 ? c->rx_ring_b : rx_ring;
	int ret;

	ret = test_port_setup(a, c->conf, c->nb_queues, rx_ring, c->tx_ring, c->pool);
	if (ret != 0) {
		printf("    port %u: %s\n", a, rte_strerror(-ret));
		return ret;
	}
	ret = test_port_setup(b, c->conf, c->nb_queues, rx_ring_b, c->tx_ring, c->pool);
	if (ret != 0) {
		printf("    port %u: %s\n", b, rte_strerror(-ret));
		return ret;
	}
	return mac_b != NULL ? rte_eth_macaddr_get(b, mac_b) : 0;
}

int
test_pair_setup(const struct test_pair_conf *c, uint16_t *a, uint16_t *b,
		struct rte_ether_addr *mac_b)
{
	int ret = test_pair_probe(c, a, b);

	if (ret != 0)
		return ret;
	ret = test_pair_start(c, *a, *b, mac_b);
	if (ret != 0)
		test_pair_teardown(c);
	return ret;
}

void
test_pair_teardown(const struct test_pair_conf *c)
{
	test_pair_destroy(c->name_a, c->name_b);
}

int
test_pair_create(const char *name_a, const char *name_b, uint16_t *a, uint16_t *b)
{
	const struct test_pair_conf c = { .name_a = name_a, .name_b = name_b };

	return test_pair_probe(&c, a, b);
}

void
test_pair_destroy(const char *name_a, const char *name_b)
{
	test_port_destroy(name_a);
	test_port_destroy(name_b);
}

int
test_port_setup(uint16_t port, const struct rte_eth_conf *conf, uint16_t nb_queues,
		uint16_t rx_ring, uint16_t tx_ring, struct rte_mempool *pool)
{
	static const struct rte_eth_conf dflt_conf;
	uint16_t q, nq = nb_queues != 0 ? nb_queues : 1;
	int ret;

	/* A started port is stopped first, so this also reconfigures. */
	rte_eth_dev_stop(port);
	ret = rte_eth_dev_configure(port, nq, nq, conf != NULL ? conf : &dflt_conf);
	for (q = 0; ret == 0 && q < nq; q++)
		ret = rte_eth_rx_queue_setup(port, q, rx_ring != 0 ? rx_ring : TEST_RING_SIZE,
					     SOCKET_ID_ANY, NULL, pool != NULL ? pool : test_pool);
	for (q = 0; ret == 0 && q < nq; q++)
		ret = rte_eth_tx_queue_setup(port, q, tx_ring != 0 ? tx_ring : TEST_RING_SIZE,
					     SOCKET_ID_ANY, NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret == 0)
		ret = rte_eth_promiscuous_enable(port);
	return ret;
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
	return refnic_xstat(port_id, name, UINT64_MAX);
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

/* An IPv4 or IPv6 TCP/UDP frame; checksums left as `csum_ok` says. */
struct rte_mbuf *
test_make_l4_pkt(bool v6, uint8_t proto, bool csum_ok, uint16_t nb_segs, uint32_t payload)
{
	uint32_t l3_len = v6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr);
	uint32_t l4_len = (proto == IPPROTO_TCP ? sizeof(struct rte_tcp_hdr) :
			   sizeof(struct rte_udp_hdr)) + payload;
	uint32_t len = sizeof(struct rte_ether_hdr) + l3_len + l4_len, i;
	uint32_t frame_len = RTE_MAX(len, (uint32_t)TEST_MIN_FRAME);
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool);
	struct rte_ether_hdr *eh;
	uint8_t *l3, *l4;

	if (m == NULL)
		return NULL;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, frame_len);
	memset(eh, 0, frame_len);	/* zero padding beyond the IP packet */
	memset(&eh->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	l3 = (uint8_t *)(eh + 1);
	l4 = l3 + l3_len;
	for (i = 0; i < payload; i++)
		l4[l4_len - payload + i] = i * 13 + 7;
	if (v6) {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)l3;

		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
		ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6->payload_len = rte_cpu_to_be_16(l4_len);
		ip6->proto = proto;
		ip6->hop_limits = 64;
		REFNIC_IPV6_BYTES(ip6->src_addr)[15] = 1;
		REFNIC_IPV6_BYTES(ip6->dst_addr)[15] = 2;
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16(l3_len + l4_len);
		ip->time_to_live = 64;
		ip->next_proto_id = proto;
		ip->src_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 1));
		ip->dst_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 2));
	}
	if (proto == IPPROTO_TCP) {
		struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)l4;

		th->src_port = rte_cpu_to_be_16(1234);
		th->dst_port = rte_cpu_to_be_16(80);
		th->data_off = 5 << 4;
	} else {
		struct rte_udp_hdr *uh = (struct rte_udp_hdr *)l4;

		uh->src_port = rte_cpu_to_be_16(1234);
		uh->dst_port = rte_cpu_to_be_16(53);
		uh->dgram_len = rte_cpu_to_be_16(l4_len);
	}
	m->l2_len = sizeof(*eh);
	m->l3_len = l3_len;
	if (csum_ok) {
		uint16_t *l4c = (uint16_t *)(l4 + (proto == IPPROTO_TCP ? 16 : 6));

		if (v6) {
			*l4c = rte_ipv6_udptcp_cksum((struct rte_ipv6_hdr *)l3, l4);
		} else {
			((struct rte_ipv4_hdr *)l3)->hdr_checksum =
				rte_ipv4_cksum((struct rte_ipv4_hdr *)l3);
			*l4c = rte_ipv4_udptcp_cksum((struct rte_ipv4_hdr *)l3, l4);
		}
	}
	if (nb_segs == 2) {
		/* Move the payload's second half into a second segment. */
		struct rte_mbuf *m2 = rte_pktmbuf_alloc(test_pool);
		uint32_t half = payload / 2;

		memcpy(rte_pktmbuf_append(m2, half), rte_pktmbuf_mtod_offset(m, uint8_t *,
								       len - half), half);
		rte_pktmbuf_trim(m, half);
		rte_pktmbuf_chain(m, m2);
	}
	return m;
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

/* A TCP frame of that flow, to broadcast. */
struct rte_mbuf *
test_make_tcp_pkt(const uint8_t *src, const uint8_t *dst, bool v6, uint16_t sport,
		  uint16_t dport)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool);
	struct rte_ether_hdr *eh;
	struct rte_tcp_hdr *th;
	uint32_t l3_len = v6 ? sizeof(struct rte_ipv6_hdr) :
					      sizeof(struct rte_ipv4_hdr);

	if (m == NULL)
		return NULL;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eh) + l3_len + sizeof(*th) + 6);
	memset(eh, 0, m->data_len);
	memset(&eh->dst_addr, 0xff, sizeof(eh->dst_addr));
	if (v6) {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(eh + 1);

		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
		ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6->proto = IPPROTO_TCP;
		ip6->hop_limits = 64;
		memcpy(REFNIC_IPV6_BYTES(ip6->src_addr), src, 16);
		memcpy(REFNIC_IPV6_BYTES(ip6->dst_addr), dst, 16);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);

		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_TCP;
		memcpy(&ip->src_addr, src, 4);
		memcpy(&ip->dst_addr, dst, 4);
	}
	th = (struct rte_tcp_hdr *)((uint8_t *)(eh + 1) + l3_len);
	th->src_port = rte_cpu_to_be_16(sport);
	th->dst_port = rte_cpu_to_be_16(dport);
	return m;
}

/* One frame a -> b; true if b received it, false once its device filtered it. */
bool
test_frame_passes(uint16_t a, uint16_t b, const struct rte_ether_addr *dst, uint16_t vlan)
{
	struct rte_mbuf *m = test_make_pkt(dst, 100, 3, 1), *rx;
	struct refnic_hw_stats before, after;
	char name_b[RTE_ETH_NAME_MAX_LEN];
	uint64_t deadline;

	if (m == NULL || rte_eth_dev_get_name_by_port(b, name_b) != 0) {
		rte_pktmbuf_free(m);
		return false;
	}
	if (vlan != 0) {
		struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eh + 1);

		vh->vlan_tci = rte_cpu_to_be_16(vlan);
		vh->eth_proto = eh->ether_type;
		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
	}
	test_hw_stats(name_b, &before);
	if (test_tx_all(a, &m, 1) != 1)
		return false;
	/* Wait for the device's verdict: delivered or filtered. */
	deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	do {
		test_hw_stats(name_b, &after);
		if (after.rx_filtered != before.rx_filtered)
			return false;
		if (rte_eth_rx_burst(b, 0, &rx, 1) == 1) {
			rte_pktmbuf_free(rx);
			return true;
		}
	} while (rte_get_timer_cycles() < deadline);
	return false;
}

void *
test_stats_loop(void *arg)
{
	struct test_stats_thread *r = arg;
	struct rte_eth_stats st;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		if (r->reset)
			rte_eth_stats_reset(r->port);
		else
			rte_eth_stats_get(r->port, &st);	/* a STATS_GET each */
		__atomic_store_n(&r->calls, r->calls + 1, __ATOMIC_RELAXED);
	}
	return NULL;
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

/*
 * The capture: EAL's log lines appended under a lock. Any thread may log
 * while a test reads the buffer (the interrupt thread, alarms, engines),
 * and fmemopen's stream writes the buffer with nothing the reader could
 * wait on. After the stop, lines still on their way are dropped.
 */
static struct {
	pthread_mutex_t lock;
	char *buf;
	size_t len, used;	/* used < len: the buffer stays a string */
	bool on;
} log_capture = { .lock = PTHREAD_MUTEX_INITIALIZER };

static ssize_t
log_capture_write(void *cookie __rte_unused, const char *data, size_t n)
{
	size_t k;

	pthread_mutex_lock(&log_capture.lock);
	if (log_capture.on) {
		k = RTE_MIN(n, log_capture.len - 1 - log_capture.used);
		memcpy(log_capture.buf + log_capture.used, data, k);
		log_capture.used += k;
	}
	pthread_mutex_unlock(&log_capture.lock);
	return n;
}

FILE *
test_log_capture_start(char *buf, size_t len)
{
	cookie_io_functions_t io = { .write = log_capture_write };
	FILE *f;

	pthread_mutex_lock(&log_capture.lock);
	memset(buf, 0, len);
	log_capture.buf = buf;
	log_capture.len = len;
	log_capture.used = 0;
	log_capture.on = true;
	pthread_mutex_unlock(&log_capture.lock);
	f = fopencookie(NULL, "w", io);
	if (f != NULL) {
		setvbuf(f, NULL, _IOLBF, 0);	/* each line out as it ends */
		rte_openlog_stream(f);
	}
	return f;
}

bool
test_log_has(const char *log, const char *needle)
{
	bool has;

	pthread_mutex_lock(&log_capture.lock);
	has = strstr(log, needle) != NULL;
	pthread_mutex_unlock(&log_capture.lock);
	return has;
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
		fflush(f);
	/* What was written is the reader's from here (the lock orders it). */
	pthread_mutex_lock(&log_capture.lock);
	log_capture.on = false;
	pthread_mutex_unlock(&log_capture.lock);
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
	int ret;

	printf("=== suite %s\n", suite->name);
	ret = suite->setup != NULL ? suite->setup() : TEST_SUCCESS;
	if (ret == TEST_SKIPPED) {
		for (tc = suite->cases; tc->name != NULL; tc++) {
			printf("SKIP %s.%s: the suite cannot run in this build\n",
			       suite->name, tc->name);
			t->skipped++;
		}
		return;
	}
	if (ret != TEST_SUCCESS) {
		for (tc = suite->cases; tc->name != NULL; tc++) {
			printf("FAIL %s.%s: suite setup failed\n", suite->name, tc->name);
			t->failed++;
		}
		return;
	}
	for (tc = suite->cases; tc->name != NULL; tc++) {
		ret = TEST_SUCCESS;
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
