/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * RSS, checked against Microsoft's Toeplitz verification vectors and DPDK's
 * rte_softrss(), and the device's MAC, multicast and VLAN filters.
 */

#include <stdlib.h>

#include <rte_thash.h>

#include "test_common.h"
#include "refnic_emu_rss.h"

#define CP_A	"net_refnic_cp0"
#define CP_B	"net_refnic_cp1"

/* Microsoft's RSS verification suite, IPv4 and IPv6 with TCP. */
static const struct {
	uint8_t src[16], dst[16];
	bool v6;
	uint16_t sport, dport;
	uint32_t hash_ip, hash_tcp;
} rss_vectors[] = {
	{ { 66, 9, 149, 187 }, { 161, 142, 100, 80 }, false, 2794, 1766, 0x323e8fc2, 0x51ccc178 },
	{ { 199, 92, 111, 2 }, { 65, 69, 140, 83 }, false, 14230, 4739, 0xd718262a, 0xc626b0ea },
	{ { 24, 19, 198, 95 }, { 12, 22, 207, 184 }, false, 12898, 38024, 0xd2d0a5de, 0x5c2b394a },
	{ { 38, 27, 205, 30 }, { 209, 142, 163, 6 }, false, 48228, 2217, 0x82989176, 0xafc7327f },
	{ { 153, 39, 163, 191 }, { 202, 188, 127, 2 }, false, 44251, 1303, 0x5d1809c5, 0x10e828a2 },
	{ { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x07 },
	  { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x01 },
	  true, 2794, 1766, 0x2cc18cd5, 0x40207d3d },
};

/* A TCP frame for vector i. */
static struct rte_mbuf *
rss_frame(unsigned int i)
{
	return test_make_tcp_pkt(rss_vectors[i].src, rss_vectors[i].dst, rss_vectors[i].v6,
			      rss_vectors[i].sport, rss_vectors[i].dport);
}

#define RSS_QUEUES	4

/* Send vector i A->B; return the RX queue it landed on (or -1) and its hash. */
static int
rss_send_frame(uint16_t a, uint16_t b, struct rte_mbuf *m, uint32_t *hash, bool *has_hash)
{
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	struct rte_mbuf *rx;
	uint16_t q;

	if (m == NULL || test_tx_all(a, &m, 1) != 1)
		return -1;
	do {
		for (q = 0; q < RSS_QUEUES; q++) {
			if (rte_eth_rx_burst(b, q, &rx, 1) == 1) {
				*has_hash = rx->ol_flags & RTE_MBUF_F_RX_RSS_HASH;
				*hash = rx->hash.rss;
				rte_pktmbuf_free(rx);
				return q;
			}
		}
	} while (rte_get_timer_cycles() < deadline);
	return -1;
}

static int
rss_send(uint16_t a, uint16_t b, unsigned int i, uint32_t *hash, bool *has_hash)
{
	return rss_send_frame(a, b, rss_frame(i), hash, has_hash);
}

/*
 * Every vector's frame (from frame()) lands with its hash, over the ports
 * or over the addresses only, on queue hash % 4 (the default table).
 */
static bool
rss_vectors_land(uint16_t a, uint16_t b, struct rte_mbuf *(*frame)(unsigned int), bool ports,
		 const char *what)
{
	bool has_hash = false;
	uint32_t hash = 0, want;
	unsigned int i;
	int q;

	for (i = 0; i < RTE_DIM(rss_vectors); i++) {
		want = ports ? rss_vectors[i].hash_tcp : rss_vectors[i].hash_ip;
		q = rss_send_frame(a, b, frame(i), &hash, &has_hash);
		if (q < 0 || !has_hash || hash != want || q != (int)(want % RSS_QUEUES)) {
			printf("    %s vector %u: queue %d hash 0x%08x, want queue %u hash 0x%08x\n",
			       what, i, q, hash, want % RSS_QUEUES, want);
			return false;
		}
	}
	return true;
}

/* What RETA entry j is set to below: no pattern a hash % 4 would give. */
static uint8_t
rss_reta_entry(unsigned int j)
{
	return (j * 3 + j / 16 + j / 64) % RSS_QUEUES;
}

/* DPDK's own Toeplitz (rte_softrss) of an IPv4 2-tuple under key. */
static uint32_t
rss_soft_ipv4(const uint8_t *src, const uint8_t *dst, const uint8_t *key)
{
	uint32_t tuple[2] = {
		(uint32_t)src[0] << 24 | src[1] << 16 | src[2] << 8 | src[3],
		(uint32_t)dst[0] << 24 | dst[1] << 16 | dst[2] << 8 | dst[3],
	};

	return rte_softrss(tuple, RTE_DIM(tuple), key);
}

/*
 * One IPv4 flow for every RETA entry, found with rte_softrss() under key;
 * each must land with that hash on the queue its entry names.
 */
static int
rss_every_entry(uint16_t a, uint16_t b, const uint8_t *key)
{
	static const uint8_t dst[4] = { 192, 0, 2, 1 };
	uint32_t found[REFNIC_RSS_RETA_SIZE], want, hash;
	unsigned int n = 0, flow, j;
	uint8_t src[4];
	bool has_hash;
	int q;

	memset(found, 0xff, sizeof(found));
	for (flow = 0; n < REFNIC_RSS_RETA_SIZE && flow < 1u << 16; flow++) {
		src[0] = 10, src[1] = 1, src[2] = flow >> 8, src[3] = flow;
		j = rss_soft_ipv4(src, dst, key) % REFNIC_RSS_RETA_SIZE;
		if (found[j] == UINT32_MAX) {
			found[j] = flow;
			n++;
		}
	}
	TEST_ASSERT_EQUAL(n, REFNIC_RSS_RETA_SIZE, "flows for %u entries only", n);
	for (j = 0; j < REFNIC_RSS_RETA_SIZE; j++) {
		src[0] = 10, src[1] = 1, src[2] = found[j] >> 8, src[3] = found[j];
		want = rss_soft_ipv4(src, dst, key);
		q = rss_send_frame(a, b, test_make_tcp_pkt(src, dst, false, 1000 + j, 80), &hash,
				   &has_hash);
		TEST_ASSERT(has_hash && hash == want && q == rss_reta_entry(j),
			    "entry %u (10.1.%u.%u): queue %d hash 0x%08x, want queue %u hash 0x%08x",
			    j, found[j] >> 8, found[j] & 0xff, q, hash, rss_reta_entry(j), want);
	}
	return TEST_SUCCESS;
}

static int
rss_port_start(uint16_t port, uint64_t rss_hf)
{
	struct rte_eth_conf conf = {
		.rxmode = { .mq_mode = RTE_ETH_MQ_RX_RSS, .offloads = RTE_ETH_RX_OFFLOAD_RSS_HASH },
		.rx_adv_conf.rss_conf = { .rss_hf = rss_hf },
	};

	return test_port_setup(port, &conf, RSS_QUEUES, 0, 0, NULL);
}

/* The device's Toeplitz hash, queue choice, RETA and key updates. */
static int
test_rss(void)
{
	struct rte_eth_rss_reta_entry64 reta[REFNIC_RSS_RETA_SIZE / RTE_ETH_RETA_GROUP_SIZE];
	uint64_t hf_tcp = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_TCP |
			  RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_TCP;
	uint8_t key[REFNIC_RSS_KEY_SIZE];
	struct rte_eth_rss_conf rss_conf = { .rss_key = key, .rss_key_len = sizeof(key) };
	uint16_t a, b;
	uint32_t hash = 0;
	bool has_hash;
	unsigned int i;
	int q, ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	if (rss_port_start(a, hf_tcp) != 0 || rss_port_start(b, hf_tcp) != 0)
		goto out;
	/* IP + TCP hashing: the 4-tuple vectors, queue = RETA[hash % 128] = hash % 4. */
	if (!rss_vectors_land(a, b, rss_frame, true, "TCP"))
		goto out;
	/* IP-only hashing: the 2-tuple vectors. */
	rss_conf.rss_key = NULL;
	rss_conf.rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_IPV6;
	if (rte_eth_dev_rss_hash_update(b, &rss_conf) != 0 ||
	    !rss_vectors_land(a, b, rss_frame, false, "IP-only"))
		goto out;
	/* A new key changes the hash to what DPDK's Toeplitz says for that key. */
	for (i = 0; i < sizeof(key); i++)
		key[i] = i * 7 + 1;
	rss_conf.rss_key = key;
	rss_conf.rss_hf = RTE_ETH_RSS_IPV4;
	if (rte_eth_dev_rss_hash_update(b, &rss_conf) != 0 || rss_send(a, b, 0, &hash, &has_hash) < 0 ||
	    hash != rss_soft_ipv4(rss_vectors[0].src, rss_vectors[0].dst, key)) {
		printf("    new key: hash 0x%08x, rte_softrss 0x%08x\n", hash,
		       rss_soft_ipv4(rss_vectors[0].src, rss_vectors[0].dst, key));
		goto out;
	}
	/* A table with no pattern: it reads back entry by entry, and every entry
	 * sends its flows to the queue it names. */
	memset(reta, 0, sizeof(reta));
	for (i = 0; i < REFNIC_RSS_RETA_SIZE; i++) {
		reta[i / RTE_ETH_RETA_GROUP_SIZE].mask = UINT64_MAX;
		reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] =
			rss_reta_entry(i);
	}
	if (rte_eth_dev_rss_reta_update(b, reta, REFNIC_RSS_RETA_SIZE) != 0)
		goto out;
	memset(reta, 0, sizeof(reta));
	for (i = 0; i < RTE_DIM(reta); i++)
		reta[i].mask = UINT64_MAX;
	if (rte_eth_dev_rss_reta_query(b, reta, REFNIC_RSS_RETA_SIZE) != 0)
		goto out;
	for (i = 0; i < REFNIC_RSS_RETA_SIZE; i++)
		if (reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] !=
		    rss_reta_entry(i)) {
			printf("    RETA entry %u reads %u, written %u\n", i,
			       reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE],
			       rss_reta_entry(i));
			goto out;
		}
	if (rss_every_entry(a, b, key) != TEST_SUCCESS)
		goto out;
	/* Everything to queue 3 (the IPv4 flows: IPv6 is not hashed now). */
	for (i = 0; i < RTE_DIM(reta); i++) {
		reta[i].mask = UINT64_MAX;
		for (q = 0; q < RTE_ETH_RETA_GROUP_SIZE; q++)
			reta[i].reta[q] = 3;
	}
	if (rte_eth_dev_rss_reta_update(b, reta, REFNIC_RSS_RETA_SIZE) != 0)
		goto out;
	for (i = 0; i < RTE_DIM(rss_vectors); i++)
		if (!rss_vectors[i].v6 && rss_send(a, b, i, &hash, &has_hash) != 3)
			goto out;
	memset(key, 0, sizeof(key));
	if (rte_eth_dev_rss_hash_conf_get(b, &rss_conf) != 0 || key[1] != 8 ||
	    rss_conf.rss_hf != RTE_ETH_RSS_IPV4)
		goto out;
	ret = TEST_SUCCESS;
out:
	test_pair_destroy(CP_A, CP_B);
	return ret;
}

/* Vector i's frame as UDP (the same ports, where UDP keeps them too). */
static struct rte_mbuf *
rss_udp_frame(unsigned int i)
{
	struct rte_mbuf *m = rss_frame(i);
	uint8_t *l3;

	if (m == NULL)
		return NULL;
	l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, sizeof(struct rte_ether_hdr));
	if (rss_vectors[i].v6)
		((struct rte_ipv6_hdr *)l3)->proto = IPPROTO_UDP;
	else
		((struct rte_ipv4_hdr *)l3)->next_proto_id = IPPROTO_UDP;
	return m;
}

/* Vector i's TCP frame, to be sent with a VLAN tag inserted. */
static struct rte_mbuf *
rss_tagged_frame(unsigned int i)
{
	struct rte_mbuf *m = rss_frame(i);

	if (m != NULL) {
		m->ol_flags |= RTE_MBUF_F_TX_VLAN;
		m->vlan_tci = 42;
	}
	return m;
}

/*
 * RSS over UDP takes the ports as it does over TCP (Microsoft's 4-tuple
 * vectors), over the addresses only once UDP is not asked; and a tagged
 * frame the port does not strip is hashed on what follows its tag.
 */
static int
test_rss_udp_and_vlan(void)
{
	uint64_t hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_NONFRAG_IPV4_TCP |
		      RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_UDP | RTE_ETH_RSS_NONFRAG_IPV6_TCP;
	struct rte_eth_rss_conf rss_conf = { .rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_IPV6 };
	uint16_t a, b;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	if (test_port_start_offloads(a, 0, RTE_ETH_TX_OFFLOAD_VLAN_INSERT, 0) == 0 &&
	    rss_port_start(b, hf) == 0 &&
	    rss_vectors_land(a, b, rss_udp_frame, true, "UDP") &&
	    rss_vectors_land(a, b, rss_tagged_frame, true, "tagged TCP") &&
	    rte_eth_dev_rss_hash_update(b, &rss_conf) == 0 &&
	    rss_vectors_land(a, b, rss_udp_frame, false, "UDP not asked:"))
		ret = TEST_SUCCESS;
	test_pair_destroy(CP_A, CP_B);
	return ret;
}

static int
test_filters(void)
{
	static const struct rte_ether_addr extra = {{ 0x02, 0, 0, 0, 0x12, 0x34 }};
	static const struct rte_ether_addr mc = {{ 0x01, 0x00, 0x5e, 0, 0, 5 }};
	struct rte_ether_addr mc_list[1] = { mc };
	struct rte_ether_addr own;
	uint16_t a, b;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	if (test_port_start(a, 0, 0) != 0 ||
	    test_port_start(b, RTE_ETH_RX_OFFLOAD_VLAN_FILTER, 0) != 0 ||
	    rte_eth_promiscuous_disable(b) != 0 || rte_eth_macaddr_get(b, &own) != 0)
		goto out;
	if (!test_frame_passes(a, b, &own, 0) || test_frame_passes(a, b, &extra, 0))
		goto out;
	if (rte_eth_dev_mac_addr_add(b, (struct rte_ether_addr *)&extra, 0) != 0 ||
	    !test_frame_passes(a, b, &extra, 0))
		goto out;
	if (rte_eth_dev_mac_addr_remove(b, (struct rte_ether_addr *)&extra) != 0 ||
	    test_frame_passes(a, b, &extra, 0))
		goto out;
	if (test_frame_passes(a, b, &mc, 0) || rte_eth_dev_set_mc_addr_list(b, mc_list, 1) != 0 ||
	    !test_frame_passes(a, b, &mc, 0))
		goto out;
	/* VLAN filtering on: tagged frames need their VID in the table. */
	if (test_frame_passes(a, b, &own, 100) || rte_eth_dev_vlan_filter(b, 100, 1) != 0 ||
	    !test_frame_passes(a, b, &own, 100) || test_frame_passes(a, b, &own, 101))
		goto out;
	ret = TEST_SUCCESS;
out:
	test_pair_destroy(CP_A, CP_B);
	return ret;
}

/* The address a -> b's i-th extra filter takes: locally administered. */
static struct rte_ether_addr
extra_addr(unsigned int i)
{
	return (struct rte_ether_addr){{ 0x02, 0xee, 0, 0, i >> 8, i }};
}

/*
 * The filters' edges: a new default address replaces the old one in the
 * filter and stays across a stop/start and a reset; every extra address the
 * port reports room for works, one more is refused and breaks none; a
 * multicast list one longer than the device takes is refused and the old
 * one kept; a VLAN ID removed is filtered again.
 */
static int
test_filter_edges(void)
{
	static const struct rte_ether_addr mc = {{ 0x01, 0x00, 0x5e, 0, 0, 7 }};
	struct rte_ether_addr mc_list[REFNIC_MAX_MC_FILTERS + 1];
	struct rte_ether_addr own, addr, mine = extra_addr(0xffff);
	struct rte_eth_dev_info info;
	unsigned int i, extras = 0;
	uint16_t a, b;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	if (test_port_start(a, 0, 0) != 0 ||
	    test_port_start(b, RTE_ETH_RX_OFFLOAD_VLAN_FILTER, 0) != 0 ||
	    rte_eth_promiscuous_disable(b) != 0 || rte_eth_macaddr_get(b, &own) != 0 ||
	    rte_eth_dev_info_get(b, &info) != 0)
		goto out;
	/* A new default address. */
	if (rte_eth_dev_default_mac_addr_set(b, &mine) != 0 || rte_eth_macaddr_get(b, &addr) != 0 ||
	    !rte_is_same_ether_addr(&addr, &mine) || !test_frame_passes(a, b, &mine, 0) ||
	    test_frame_passes(a, b, &own, 0)) {
		printf("    a new default address is not the one the filter takes\n");
		goto out;
	}
	if (rte_eth_dev_stop(b) != 0 || rte_eth_dev_start(b) != 0 ||
	    !test_frame_passes(a, b, &mine, 0) || test_frame_passes(a, b, &own, 0)) {
		printf("    the new default address is lost across a stop/start\n");
		goto out;
	}
	/* Every extra address there is room for, then one more. */
	for (i = 0; i + 1 < info.max_mac_addrs; i++, extras++) {
		addr = extra_addr(i);
		if (rte_eth_dev_mac_addr_add(b, &addr, 0) != 0)
			break;
	}
	addr = extra_addr(i + 1);
	if (extras != REFNIC_MAX_MAC_FILTERS || rte_eth_dev_mac_addr_add(b, &addr, 0) == 0) {
		printf("    %u extra addresses taken of %u reported\n", extras,
		       info.max_mac_addrs - 1);
		goto out;
	}
	for (i = 0; i < extras; i++) {
		addr = extra_addr(i);
		if (!test_frame_passes(a, b, &addr, 0)) {
			printf("    extra address %u filtered\n", i);
			goto out;
		}
	}
	/* A multicast list longer than the device takes. */
	for (i = 0; i < RTE_DIM(mc_list); i++)
		mc_list[i] = (struct rte_ether_addr){{ 0x01, 0x00, 0x5e, 0, 1, i }};
	mc_list[0] = mc;
	if (rte_eth_dev_set_mc_addr_list(b, mc_list, 1) != 0 ||
	    rte_eth_dev_set_mc_addr_list(b, mc_list, RTE_DIM(mc_list)) == 0 ||
	    !test_frame_passes(a, b, &mc, 0) || test_frame_passes(a, b, &mc_list[1], 0)) {
		printf("    a refused multicast list changed the filter\n");
		goto out;
	}
	/* A VLAN ID added, then removed. */
	if (rte_eth_dev_vlan_filter(b, 200, 1) != 0 || !test_frame_passes(a, b, &mine, 200) ||
	    rte_eth_dev_vlan_filter(b, 200, 0) != 0 || test_frame_passes(a, b, &mine, 200)) {
		printf("    a removed VLAN ID still passes\n");
		goto out;
	}
	/* The default address across a reset, as ethdev's data keeps it. */
	if (rte_eth_dev_reset(b) != 0 || test_port_start(b, 0, 0) != 0 ||
	    rte_eth_promiscuous_disable(b) != 0 || !test_frame_passes(a, b, &mine, 0) ||
	    test_frame_passes(a, b, &own, 0)) {
		printf("    the default address is lost across a reset\n");
		goto out;
	}
	ret = TEST_SUCCESS;
out:
	test_pair_destroy(CP_A, CP_B);
	return ret;
}

/*
 * The device's table (one look-up a tuple byte) against rte_softrss() bit
 * by bit: random keys, random tuples of each length a frame hashes (IPv4
 * 8 and 12 bytes, IPv6 32 and 36), and every single set bit of the
 * longest under each key, where a table entry off by a bit shows alone.
 */
static int
test_rss_table_is_toeplitz(void)
{
	static const uint32_t lens[] = { 8, 12, 32, 36 };
	static struct refnic_emu_rss_table t;
	uint8_t key[REFNIC_RSS_KEY_SIZE], data[REFNIC_EMU_RSS_TUPLE_MAX];
	uint32_t words[REFNIC_EMU_RSS_TUPLE_MAX / 4], len, i, k, bit, n = 0;
	unsigned int seed = (unsigned int)rte_rdtsc(), round;

	printf("    seed %u\n", seed);
	srand(seed);
	for (round = 0; round < 64; round++) {
		for (i = 0; i < sizeof(key); i++)
			key[i] = rand();
		t.valid = false;
		refnic_emu_rss_table_update(&t, key);
		for (k = 0; k < RTE_DIM(lens) * 8 + 8 * REFNIC_EMU_RSS_TUPLE_MAX; k++) {
			if (k < RTE_DIM(lens) * 8) {
				len = lens[k % RTE_DIM(lens)];
				for (i = 0; i < len; i++)
					data[i] = rand();
			} else {
				bit = k - RTE_DIM(lens) * 8;
				len = REFNIC_EMU_RSS_TUPLE_MAX;
				memset(data, 0, len);
				data[bit / 8] = 0x80 >> (bit % 8);
			}
			for (i = 0; i < len / 4; i++)
				words[i] = (uint32_t)data[4 * i] << 24 | data[4 * i + 1] << 16 |
					   data[4 * i + 2] << 8 | data[4 * i + 3];
			TEST_ASSERT_EQUAL(refnic_emu_rss_table_hash(&t, data, len),
					  rte_softrss(words, len / 4, key),
					  "round %u, tuple %u of %u bytes", round, k, len);
			n++;
		}
	}
	printf("    %u tuples, each hash as rte_softrss's\n", n);
	return TEST_SUCCESS;
}

const struct unit_test_suite refnic_rss_filters_suite = {
	.name = "rss_filters",
	.cases = {
		TEST_CASE(test_rss_table_is_toeplitz),
		TEST_CASE(test_rss),
		TEST_CASE(test_rss_udp_and_vlan),
		TEST_CASE(test_filters),
		TEST_CASE(test_filter_edges),
		TEST_CASES_END()
	},
};
