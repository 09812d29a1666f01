/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The vector bursts against the scalar ones: a pair of ports with
 * simd=scalar, then one with simd=sse and one with simd=avx2 (where the CPU
 * has AVX2), given the same frames in the same bursts, must deliver the
 * same frames (bytes, segments, lengths, ol_flags, packet types, RSS
 * hashes, stripped tags, queues) and count the same in every data-path
 * xstat. Over ring sizes 64 to 4096, bursts of 1 to 64 (AVX2's eight-wide
 * steps, its SSE fallback for four to seven, the scalar rest), ring wraps,
 * RX and TX offloads, multi-segment and jumbo (scattered) frames, which the
 * vector bursts hand to their scalar cores. And which bursts a port runs,
 * by simd= and EAL's SIMD limit.
 */

#include <inttypes.h>

#include <rte_cpuflags.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_vect.h>

#include "test_common.h"

#define NB_QUEUES	2
#define MAX_FRAMES	(3 * 4096 + 64)
#define JUMBO_LEN	(9000 + RTE_ETHER_HDR_LEN)

#define RX_OL_FLAGS	(RTE_MBUF_F_RX_RSS_HASH | RTE_MBUF_F_RX_IP_CKSUM_MASK | \
			 RTE_MBUF_F_RX_L4_CKSUM_MASK | RTE_MBUF_F_RX_VLAN | \
			 RTE_MBUF_F_RX_VLAN_STRIPPED)
#define ALL_RX_OL	(RTE_ETH_RX_OFFLOAD_CHECKSUM | RTE_ETH_RX_OFFLOAD_VLAN_STRIP | \
			 RTE_ETH_RX_OFFLOAD_RSS_HASH)
#define ALL_TX_OL	(RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM | \
			 RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_VLAN_INSERT | \
			 RTE_ETH_TX_OFFLOAD_MULTI_SEGS)

/* What a received frame looked like to the application. */
struct seen {
	uint16_t queue;
	uint16_t nb_segs;
	uint32_t pkt_len;
	uint32_t packet_type;
	uint64_t ol_flags;
	uint32_t rss;		/* with RTE_MBUF_F_RX_RSS_HASH */
	uint16_t vlan_tci;	/* with RTE_MBUF_F_RX_VLAN_STRIPPED */
	uint32_t crc;		/* of its bytes, segment by segment */
};

struct vec_case {
	uint16_t ring;
	uint16_t burst;
	uint64_t rx_ol;
	uint64_t tx_ol;
	uint16_t mtu;		/* 9000: jumbo frames in 2 KiB buffers, scattered */
	uint16_t rx_burst;	/* 0: burst; smaller, a backlog builds up */
	uint16_t queues;	/* 0: NB_QUEUES with RSS; 1: one, whose frames the
				 * device places unclassified */
};

static uint16_t
vec_queues(const struct vec_case *c)
{
	return c->queues != 0 ? c->queues : NB_QUEUES;
}

#define XSTATS_MAX	512

static struct seen seen_scalar[MAX_FRAMES], seen_vector[MAX_FRAMES];
static struct rte_eth_xstat_name xstat_names[XSTATS_MAX];
/* RX buffers: two ports of NB_QUEUES rings of 4096, more than test_pool has. */
static struct rte_mempool *vec_pool;

/* Start port with vec_queues() queue pairs of ring entries, RSS over them. */
static int
vec_port_start(uint16_t port, const struct vec_case *c)
{
	struct rte_eth_conf conf = {
		.rxmode = {
			/* One queue hashes only if asked to (the hash offload). */
			.mq_mode = vec_queues(c) > 1 || (c->rx_ol & RTE_ETH_RX_OFFLOAD_RSS_HASH) ?
				   RTE_ETH_MQ_RX_RSS : RTE_ETH_MQ_RX_NONE,
			.offloads = c->rx_ol,
		},
		.txmode = { .offloads = c->tx_ol },
		.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_TCP |
						RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_IPV6,
	};
	uint16_t q;
	int ret;

	ret = rte_eth_dev_configure(port, vec_queues(c), vec_queues(c), &conf);
	if (ret == 0)
		ret = rte_eth_dev_set_mtu(port, c->mtu);
	for (q = 0; ret == 0 && q < vec_queues(c); q++) {
		ret = rte_eth_rx_queue_setup(port, q, c->ring, SOCKET_ID_ANY, NULL, vec_pool);
		if (ret == 0)
			ret = rte_eth_tx_queue_setup(port, q, c->ring, SOCKET_ID_ANY, NULL);
	}
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret == 0)
		ret = rte_eth_promiscuous_enable(port);
	return ret;
}

/* Frame i of the mix; the same i makes the same frame. */
static struct rte_mbuf *
vec_frame(uint32_t i, const struct vec_case *c, const struct rte_ether_addr *dst)
{
	bool tx_ol = c->tx_ol != 0;
	struct rte_mbuf *m;

	switch (i % 9) {
	case 0:
		return test_make_pkt(dst, TEST_MIN_FRAME, i, 1);
	case 1:
		m = test_make_l4_pkt(false, IPPROTO_UDP, true, 1, i % 200);
		break;
	case 2:
		m = test_make_l4_pkt(true, IPPROTO_TCP, true, 1, 64 + i % 300);
		break;
	case 3:
		m = test_make_l4_pkt(false, IPPROTO_TCP, false, 1, 18);	/* bad checksums */
		break;
	case 4:
		return test_make_pkt(dst, 1500, i, tx_ol ? 3 : 1);
	case 5:
		m = test_make_l4_pkt(true, IPPROTO_UDP, !tx_ol, tx_ol ? 2 : 1, 100);
		if (m != NULL && tx_ol)
			m->ol_flags |= RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM;
		break;
	case 6:
		m = test_make_l4_pkt(false, IPPROTO_TCP, !tx_ol, 1, 40);
		if (m == NULL)
			return NULL;	/* the pool ran dry: the caller says so */
		if (tx_ol)
			m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM |
				       RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_VLAN;
		m->vlan_tci = 100 + i % 7;
		break;
	case 7:
		if (c->mtu > RTE_ETHER_MTU && tx_ol)
			return test_make_pkt(dst, JUMBO_LEN, i, 5);
		return test_make_pkt(dst, 200 + i % 1000, i, 1);
	default:
		m = test_make_l4_pkt(false, IPPROTO_UDP, true, 1, 1 + (i * 7) % 500);
		if (m == NULL)
			return NULL;
		/* Another flow: the other RSS queue, most of the time. */
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
					RTE_ETHER_HDR_LEN)->src_addr = rte_cpu_to_be_32(i);
		break;
	}
	if (m == NULL)
		return NULL;
	/* Checksums set by hand were over the old address: right them. */
	if (i % 9 == 8 || i % 9 == 1) {
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
								  RTE_ETHER_HDR_LEN);
		struct rte_udp_hdr *uh = (struct rte_udp_hdr *)(ip + 1);

		ip->hdr_checksum = 0;
		uh->dgram_cksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		uh->dgram_cksum = rte_ipv4_udptcp_cksum(ip, uh);
	}
	return m;
}

static void
vec_record(struct seen *s, uint16_t queue, const struct rte_mbuf *m)
{
	const struct rte_mbuf *seg;

	memset(s, 0, sizeof(*s));
	s->queue = queue;
	s->nb_segs = m->nb_segs;
	s->pkt_len = m->pkt_len;
	s->packet_type = m->packet_type;
	s->ol_flags = m->ol_flags & RX_OL_FLAGS;
	if (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH)
		s->rss = m->hash.rss;
	if (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED)
		s->vlan_tci = m->vlan_tci;
	s->crc = 0xffffffff;
	for (seg = m; seg != NULL; seg = seg->next)
		s->crc = rte_hash_crc(rte_pktmbuf_mtod(seg, void *), seg->data_len, s->crc);
}

/*
 * n frames a to b in bursts of c->burst (TX queue by frame), received in
 * bursts of c->rx_burst (0: c->burst) from every RX queue in turn; what b
 * saw into seen.
 * Returns the count seen.
 */
static uint32_t
vec_run(uint16_t a, uint16_t b, const struct vec_case *c, uint32_t n, struct seen *seen)
{
	struct rte_mbuf *tx[64], *rx[64];
	struct rte_ether_addr mac;
	uint32_t sent = 0, got = 0, idle = 0;
	/* Frames in flight at most: a jumbo frame takes 5 RX buffers. */
	uint32_t window = c->mtu > RTE_ETHER_MTU ? c->ring / 8 : c->ring / 2;
	uint16_t rx_burst = c->rx_burst != 0 ? c->rx_burst : c->burst;
	uint16_t i, k, q;

	rte_eth_macaddr_get(b, &mac);
	while (got < n && idle < 100000) {
		uint16_t want = RTE_MIN((uint32_t)c->burst, n - sent);
		bool moved = false;

		/* Keep at most one ring's worth in flight: nothing dropped. */
		if (want > 0 && sent - got + want <= window) {
			for (k = 0; k < want; k++)
				tx[k] = vec_frame(sent + k, c, &mac);
			/* Out of mbufs (a suite before may have leaked): fail,
			 * never hand the PMD a NULL. */
			for (k = 0; k < want && tx[k] != NULL; k++)
				;
			if (k != want || rte_eth_tx_prepare(a, 0, tx, want) != want) {
				for (i = 0; i < want; i++)
					rte_pktmbuf_free(tx[i]);
				break;
			}
			k = test_tx_all_queue(a, sent % vec_queues(c), tx, want);
			for (i = k; i < want; i++)
				rte_pktmbuf_free(tx[i]);
			sent += k;
			moved = k > 0;
		}
		for (q = 0; q < vec_queues(c); q++) {
			k = rte_eth_rx_burst(b, q, rx, rx_burst);
			if (k > rx_burst) {	/* it wrote past what it was given */
				printf("    rx burst of %u returned %u\n", rx_burst, k);
				rte_pktmbuf_free_bulk(rx, RTE_MIN(k, (uint16_t)RTE_DIM(rx)));
				return got;
			}
			for (i = 0; i < k; i++) {
				if (got < n)
					vec_record(&seen[got++], q, rx[i]);
				rte_pktmbuf_free(rx[i]);
			}
			moved |= k > 0;
		}
		idle = moved ? 0 : idle + 1;
	}
	return got;
}

/* Does port's burst mode say mode, both ways? */
static bool
vec_mode_is(uint16_t port, const char *mode)
{
	struct rte_eth_burst_mode rx, tx;

	return rte_eth_rx_burst_mode_get(port, 0, &rx) == 0 &&
	       rte_eth_tx_burst_mode_get(port, 0, &tx) == 0 &&
	       strncmp(rx.info, mode, strlen(mode)) == 0 &&
	       strncmp(tx.info, mode, strlen(mode)) == 0;
}

/* A way to run, the driver's (simd=) or the device's (device_simd=). */
struct vec_mode {
	const char *simd;		/* the devarg's value */
	const char *mode;		/* the driver's burst mode, so named */
	enum refnic_emu_simd device;	/* the device's stages, so asked */
	enum rte_cpu_flag_t flag;	/* what the CPU needs */
};

static const struct vec_mode vec_scalar = {
	"scalar", "Scalar", REFNIC_EMU_SIMD_SCALAR, RTE_CPUFLAG_SSE4_2 };

/* The vector ways, each where the CPU has what it needs. */
static const struct vec_mode vec_modes[] = {
	{ "sse", "Vector SSE", REFNIC_EMU_SIMD_SSE, RTE_CPUFLAG_SSE4_2 },
	{ "avx2", "Vector AVX2", REFNIC_EMU_SIMD_AVX2, RTE_CPUFLAG_AVX2 },
};

/* Does the pair run m: the driver's bursts (!device) or both devices' stages? */
static bool
vec_runs(const struct test_pair_conf *pair, uint16_t b, bool device, const struct vec_mode *m)
{
	if (!device)
		return vec_mode_is(b, m->mode);
	return refnic_emu_simd_mode(refnic_emu_lookup(pair->name_a)) == m->device &&
	       refnic_emu_simd_mode(refnic_emu_lookup(pair->name_b)) == m->device;
}

/* Devargs every pair gets besides simd= ($REFNIC_TEST_DEVARGS, e.g. rx_wb=on:
 * the comparison under the other RX completion format); NULL: none. */
static const char *
vec_extra(void)
{
	return getenv("REFNIC_TEST_DEVARGS");
}

/* One pair, a with b, running m (the device's way if device): the frames b
 * saw, both ports' xstats and both devices' path counters (ps[0] a's). */
static int
vec_pair_run(const struct vec_case *c, bool device, const struct vec_mode *m, uint32_t n,
	     struct seen *seen, uint64_t *xstats_a, uint64_t *xstats_b, int *nb_xstats,
	     struct refnic_emu_path_stats *ps)
{
	char args[128];
	const struct test_pair_conf pair = {
		.name_a = "net_refnic_va", .name_b = "net_refnic_vb", .args_a = args,
	};
	uint16_t a, b;
	uint32_t got = 0;
	int ret;

	snprintf(args, sizeof(args), "%s=%s%s%s", device ? "device_simd" : "simd", m->simd,
		 vec_extra() != NULL ? "," : "", vec_extra() != NULL ? vec_extra() : "");
	ret = test_pair_probe(&pair, &a, &b);
	if (ret != 0)
		return ret;
	ret = vec_port_start(a, c) | vec_port_start(b, c);
	if (ret == 0 && !vec_runs(&pair, b, device, m))
		ret = -ENOTSUP;
	if (ret == 0)
		got = vec_run(a, b, c, n, seen);
	if (ret == 0) {
		*nb_xstats = rte_eth_xstats_get_by_id(a, NULL, xstats_a, XSTATS_MAX);
		if (rte_eth_xstats_get_by_id(b, NULL, xstats_b, XSTATS_MAX) != *nb_xstats ||
		    *nb_xstats <= 0 || *nb_xstats > XSTATS_MAX)
			ret = -EINVAL;
	}
	if (ret == 0 && rte_eth_xstats_get_names_by_id(b, xstat_names, XSTATS_MAX, NULL) !=
	    *nb_xstats)
		ret = -EINVAL;
	refnic_emu_read_path_stats(refnic_emu_lookup(pair.name_a), &ps[0]);
	refnic_emu_read_path_stats(refnic_emu_lookup(pair.name_b), &ps[1]);
	test_pair_teardown(&pair);
	return ret != 0 ? ret : (int)(got == n ? 0 : -EIO);
}

/* Every data-path xstat the same both ways (timing is none: admin waits,
 * polls, intervals). */
static int
vec_xstats_equal(const struct vec_case *c, const char *port, const uint64_t *vs,
		 const uint64_t *vv, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *name = xstat_names[i].name;

		if (strstr(name, "admin") != NULL || strstr(name, "_us") != NULL ||
		    strstr(name, "wait") != NULL)
			continue;
		TEST_ASSERT_EQUAL(vs[i], vv[i], "ring %u burst %u: port %s xstat %s: scalar %"
				  PRIu64 ", vector %" PRIu64, c->ring, c->burst, port, name,
				  vs[i], vv[i]);
	}
	return TEST_SUCCESS;
}


/*
 * What the device's stages took: nothing in groups when scalar; as vector,
 * nearly every frame of bursts of 32 or more without TX offloads (the rest:
 * a group's stop at a buffer on a page the thread's cache did not hold, a
 * ring's end, a burst's last few). On RX too, classified or not; with RSS
 * over two queues, three in four: each queue's share of a burst may end in
 * up to three frames, fewer than a group.
 */
static int
vec_device_counts(const struct vec_case *c, const struct vec_mode *m, uint32_t n,
		  const struct refnic_emu_path_stats *ps)
{
	uint64_t most = n - n / 10, most_rx = vec_queues(c) == 1 ? most : n - n / 4;

	if (m->device == REFNIC_EMU_SIMD_SCALAR) {
		TEST_ASSERT(ps[0].tx_vec_descs + ps[1].tx_vec_descs + ps[0].rx_vec_frames +
			    ps[1].rx_vec_frames == 0, "scalar: frames in vector groups");
		return TEST_SUCCESS;
	}
	if (c->burst < 32 || c->tx_ol != 0)
		return TEST_SUCCESS;
	TEST_ASSERT(ps[0].tx_vec_descs >= most, "%s ring %u burst %u: %" PRIu64 " of %u "
		    "descriptors fetched in groups", m->simd, c->ring, c->burst,
		    ps[0].tx_vec_descs, n);
	TEST_ASSERT(ps[1].rx_vec_frames >= most_rx, "%s ring %u burst %u rx %" PRIx64 ": %"
		    PRIu64 " of %u frames placed in groups", m->simd, c->ring, c->burst,
		    c->rx_ol, ps[1].rx_vec_frames, n);
	return TEST_SUCCESS;
}

/* The scalar way against each vector one, the driver's or the device's. */
static int
vec_case_run(const struct vec_case *c, bool device)
{
	static uint64_t sa[XSTATS_MAX], sb[XSTATS_MAX], va[XSTATS_MAX], vb[XSTATS_MAX];
	uint32_t n = RTE_MIN(3u * c->ring + 7, (uint32_t)MAX_FRAMES), i;
	struct refnic_emu_path_stats ps[2];
	unsigned int m;
	int ns = 0, nv = 0;

	TEST_ASSERT_SUCCESS(vec_pair_run(c, device, &vec_scalar, n, seen_scalar, sa, sb, &ns, ps),
			    "ring %u burst %u: the scalar pair", c->ring, c->burst);
	if (device && vec_device_counts(c, &vec_scalar, n, ps) != TEST_SUCCESS)
		return TEST_FAILED;
	for (m = 0; m < RTE_DIM(vec_modes); m++) {
		const char *mode = device ? vec_modes[m].simd : vec_modes[m].mode;

		if (rte_cpu_get_flag_enabled(vec_modes[m].flag) != 1)
			continue;
		TEST_ASSERT_SUCCESS(vec_pair_run(c, device, &vec_modes[m], n, seen_vector,
						 va, vb, &nv, ps),
				    "ring %u burst %u: the %s pair", c->ring, c->burst, mode);
		if (device && vec_device_counts(c, &vec_modes[m], n, ps) != TEST_SUCCESS)
			return TEST_FAILED;
		TEST_ASSERT_EQUAL(ns, nv, "%s: xstats counts", mode);
		if (vec_xstats_equal(c, "a", sa, va, ns) != TEST_SUCCESS ||
		    vec_xstats_equal(c, "b", sb, vb, ns) != TEST_SUCCESS)
			return TEST_FAILED;
		for (i = 0; i < n; i++)
			TEST_ASSERT(memcmp(&seen_scalar[i], &seen_vector[i],
					   sizeof(seen_scalar[i])) == 0,
				    "%s ring %u burst %u rx %x tx %x: frame %u differs (queue "
				    "%u/%u, len %u/%u, segs %u/%u, ol_flags %" PRIx64 "/%" PRIx64
				    ", type %x/%x)", mode, c->ring, c->burst,
				    (unsigned int)c->rx_ol, (unsigned int)c->tx_ol, i,
				    seen_scalar[i].queue, seen_vector[i].queue,
				    seen_scalar[i].pkt_len, seen_vector[i].pkt_len,
				    seen_scalar[i].nb_segs, seen_vector[i].nb_segs,
				    seen_scalar[i].ol_flags, seen_vector[i].ol_flags,
				    seen_scalar[i].packet_type, seen_vector[i].packet_type);
	}
	return TEST_SUCCESS;
}

static int
test_vector_matches_scalar(void)
{
	static const struct vec_case cases[] = {
		{ 64, 1, 0, 0, RTE_ETHER_MTU, 0, 0 },
		{ 64, 4, ALL_RX_OL, ALL_TX_OL, RTE_ETHER_MTU, 0, 0 },
		{ 64, 7, RTE_ETH_RX_OFFLOAD_RSS_HASH, 0, RTE_ETHER_MTU, 0, 0 },
		{ 256, 32, 0, 0, RTE_ETHER_MTU, 0, 0 },
		{ 256, 3, RTE_ETH_RX_OFFLOAD_CHECKSUM, ALL_TX_OL, RTE_ETHER_MTU, 0, 0 },
		{ 512, 64, RTE_ETH_RX_OFFLOAD_VLAN_STRIP, ALL_TX_OL, RTE_ETHER_MTU, 0, 0 },
		{ 1024, 32, ALL_RX_OL, ALL_TX_OL, 9000, 0, 0 },
		{ 1024, 5, 0, ALL_TX_OL, 9000, 0, 0 },
		{ 4096, 64, ALL_RX_OL, 0, RTE_ETHER_MTU, 0, 0 },
		{ 4096, 1, 0, 0, RTE_ETHER_MTU, 0, 0 },
		/* AVX2: one eight-wide step and a rest of 0 to 7 a burst. */
		{ 64, 8, ALL_RX_OL, 0, RTE_ETHER_MTU, 0, 0 },
		{ 64, 15, RTE_ETH_RX_OFFLOAD_RSS_HASH, ALL_TX_OL, RTE_ETHER_MTU, 0, 0 },
		{ 128, 12, 0, 0, RTE_ETHER_MTU, 0, 0 },
		{ 128, 9, ALL_RX_OL, ALL_TX_OL, 9000, 0, 0 },
		{ 2048, 16, RTE_ETH_RX_OFFLOAD_CHECKSUM, 0, RTE_ETHER_MTU, 0, 0 },
		/* A backlog: full eight-wide steps, then the rest of a burst. */
		{ 512, 64, 0, 0, RTE_ETHER_MTU, 12, 0 },
		{ 512, 64, ALL_RX_OL, ALL_TX_OL, RTE_ETHER_MTU, 21, 0 },
		{ 1024, 32, 0, ALL_TX_OL, 9000, 14, 0 },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++)
		if (vec_case_run(&cases[i], false) != TEST_SUCCESS)
			return TEST_FAILED;
	return TEST_SUCCESS;
}

/*
 * The device's descriptor stages (device_simd=, refnic_emu_simd.h) against
 * its scalar loops, the driver's bursts as they come (simd=auto): the same
 * frames and every data-path counter. One queue a port (its frames placed
 * unclassified) and two with RSS (classified, each queue's frames placed
 * together); ring wraps, backlogs that cut RX spans at the tail, and
 * frames the groups stop at (offloads, multi-segment, scattered jumbo
 * ones, tagged ones a stripping queue takes alone amid the others).
 */
static int
test_device_vector_matches_scalar(void)
{
	static const struct vec_case cases[] = {
		{ 64, 1, 0, 0, RTE_ETHER_MTU, 0, 1 },
		{ 64, 7, 0, 0, RTE_ETHER_MTU, 0, 1 },
		{ 256, 32, 0, 0, RTE_ETHER_MTU, 0, 1 },
		{ 256, 32, ALL_RX_OL, 0, RTE_ETHER_MTU, 0, 1 },
		{ 512, 64, 0, 0, RTE_ETHER_MTU, 12, 1 },
		{ 1024, 32, 0, ALL_TX_OL, 9000, 0, 1 },
		{ 4096, 64, 0, 0, RTE_ETHER_MTU, 0, 1 },
		{ 128, 9, 0, 0, RTE_ETHER_MTU, 0, 0 },
		{ 256, 32, ALL_RX_OL, ALL_TX_OL, RTE_ETHER_MTU, 0, 0 },
		{ 256, 32, RTE_ETH_RX_OFFLOAD_RSS_HASH, 0, RTE_ETHER_MTU, 0, 0 },
		{ 512, 64, ALL_RX_OL, 0, RTE_ETHER_MTU, 0, 0 },
		{ 512, 64, ALL_RX_OL, ALL_TX_OL, RTE_ETHER_MTU, 12, 0 },
		{ 1024, 32, ALL_RX_OL, ALL_TX_OL, 9000, 0, 0 },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++)
		if (vec_case_run(&cases[i], true) != TEST_SUCCESS)
			return TEST_FAILED;
	return TEST_SUCCESS;
}

/* One RX completion of port B to garble: the pos-th it writes, by kind. */
struct vec_garble {
	uint32_t seen;		/* RX completions written so far */
	uint32_t pos;
	unsigned int kind;
	uint16_t ring;
	uint16_t buf_size;
};

#define VEC_GARBLE_KINDS	5

static void
vec_garble(void *ctx, uint8_t what, void *entry, size_t len __rte_unused)
{
	struct vec_garble *g = ctx;
	struct refnic_rx_cpl *cpl = entry;

	if (what != REFNIC_EMU_CORRUPT_RX || g->seen++ != g->pos)
		return;
	switch (g->kind) {
	case 0:
		cpl->desc_idx = (cpl->desc_idx + 1) & (g->ring - 1);	/* another one's */
		break;
	case 1:
		cpl->desc_idx += g->ring;				/* beyond the ring */
		break;
	case 2:
		cpl->len = 0;
		break;
	case 3:
		cpl->len = g->buf_size + 1;				/* beyond the buffer */
		break;
	default:
		cpl->flags &= ~REFNIC_RXC_EOP;		/* in pieces, on an unscattered queue */
		break;
	}
}

/*
 * 32 frames A to B, B's completion g->pos garbled: the frames B delivers,
 * their lengths into lens, and B's ierrors. Every path must stop at the
 * bad one. lone: the frames one at a time, each received before the next
 * goes (one in flight), up to the bad one (a recovery would take later ones).
 */
static int
vec_garbled_run(const char *simd, struct vec_garble *g, bool lone, uint32_t *got,
		uint32_t *lens, uint64_t *ierrors)
{
	char args[128];
	const struct test_pair_conf pair = {
		.name_a = "net_refnic_va", .name_b = "net_refnic_vb", .args_a = args,
		.rx_ring = g->ring, .tx_ring = g->ring, .pool = vec_pool,
	};
	struct rte_mbuf *tx[32], *rx[32];
	unsigned int idle = 0, i, k, nb_tx = lone ? g->pos + 1 : RTE_DIM(tx);
	struct rte_ether_addr mac;
	struct rte_eth_stats st;
	uint16_t a, b;
	int ret;

	snprintf(args, sizeof(args), "simd=%s,itr=off%s%s", simd, vec_extra() != NULL ? "," : "",
		 vec_extra() != NULL ? vec_extra() : "");
	*got = 0;
	ret = test_pair_setup(&pair, &a, &b, &mac);
	if (ret != 0)
		return ret;
	g->seen = 0;
	refnic_emu_set_tamper(refnic_emu_lookup(pair.name_b), vec_garble, g);
	for (i = 0; i < nb_tx; i++) {
		tx[i] = test_make_pkt(&mac, TEST_MIN_FRAME + i, i, 1);
		if (tx[i] == NULL) {
			rte_pktmbuf_free_bulk(tx, i);
			ret = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < nb_tx; i += k) {
		k = test_tx_all_queue(a, 0, tx + i, lone ? 1 : nb_tx - i);
		if (k == 0) {
			rte_pktmbuf_free_bulk(tx + i, nb_tx - i);
			break;
		}
		/* Until nothing comes for a while: what follows the bad one
		 * never does. */
		for (idle = 0; idle < 200;) {
			uint16_t j, n = rte_eth_rx_burst(b, 0, rx, RTE_DIM(rx));

			for (j = 0; j < n; j++) {
				if (*got < RTE_DIM(tx))
					lens[(*got)++] = rx[j]->pkt_len;
				rte_pktmbuf_free(rx[j]);
			}
			if (lone && n != 0)
				break;
			idle = n != 0 ? 0 : idle + 1;
			rte_delay_us_sleep(100);
		}
	}
	ret = rte_eth_stats_get(b, &st);
	*ierrors = st.ierrors;
out:
	refnic_emu_set_tamper(refnic_emu_lookup(pair.name_b), NULL, NULL);
	test_pair_teardown(&pair);
	return ret;
}

/*
 * A device that writes a bad RX completion (another descriptor's index, one
 * beyond the ring, a length of 0 or beyond the buffer, a piece of a frame
 * on an unscattered queue) inside an eight-wide step or a four-wide one:
 * the vector bursts deliver what the scalar one does, the frames before it.
 */
static int
test_vector_bad_completion(void)
{
	static const uint32_t positions[] = { 5, 13 };
	uint32_t lens_s[32], lens_v[32], got_s, got_v;
	uint64_t err_s, err_v;
	struct vec_garble g = {
		.ring = 64,
		.buf_size = rte_pktmbuf_data_room_size(vec_pool) - RTE_PKTMBUF_HEADROOM,
	};
	unsigned int p, m;

	for (g.kind = 0; g.kind < VEC_GARBLE_KINDS; g.kind++) {
		for (p = 0; p < RTE_DIM(positions); p++) {
			g.pos = positions[p];
			TEST_ASSERT_SUCCESS(vec_garbled_run("scalar", &g, false, &got_s, lens_s,
							    &err_s),
					    "kind %u at %u: scalar", g.kind, g.pos);
			TEST_ASSERT_EQUAL(got_s, g.pos, "kind %u at %u: scalar delivered %u",
					  g.kind, g.pos, got_s);
			for (m = 0; m < RTE_DIM(vec_modes); m++) {
				if (rte_cpu_get_flag_enabled(vec_modes[m].flag) != 1)
					continue;
				TEST_ASSERT_SUCCESS(vec_garbled_run(vec_modes[m].simd, &g, false,
								    &got_v, lens_v, &err_v),
						    "kind %u at %u: %s", g.kind, g.pos,
						    vec_modes[m].mode);
				TEST_ASSERT(got_v == got_s &&
					    memcmp(lens_s, lens_v, got_s * sizeof(*lens_s)) == 0,
					    "kind %u at %u: %s delivered %u frames, scalar %u",
					    g.kind, g.pos, vec_modes[m].mode, got_v, got_s);
			}
		}
	}
	return TEST_SUCCESS;
}

/*
 * The same with one frame in flight: the bad completion is a lone frame's,
 * and the one after it is not written (the vector bursts' one-lane way,
 * refnic_rx_vec_lone()). Every path delivers the frames before it, and
 * counts the bad one in ierrors once, as the scalar one does.
 */
static int
test_vector_bad_lone_completion(void)
{
	uint32_t lens_s[32], lens_v[32], got_s, got_v;
	struct vec_garble g = {
		.pos = 3,
		.ring = 64,
		.buf_size = rte_pktmbuf_data_room_size(vec_pool) - RTE_PKTMBUF_HEADROOM,
	};
	uint64_t err_s, err_v;
	unsigned int m;

	for (g.kind = 0; g.kind < VEC_GARBLE_KINDS; g.kind++) {
		TEST_ASSERT_SUCCESS(vec_garbled_run("scalar", &g, true, &got_s, lens_s, &err_s),
				    "kind %u: scalar", g.kind);
		TEST_ASSERT(got_s == g.pos && err_s == 1,
			    "kind %u: scalar delivered %u, %" PRIu64 " errors", g.kind, got_s,
			    err_s);
		for (m = 0; m < RTE_DIM(vec_modes); m++) {
			if (rte_cpu_get_flag_enabled(vec_modes[m].flag) != 1)
				continue;
			TEST_ASSERT_SUCCESS(vec_garbled_run(vec_modes[m].simd, &g, true, &got_v,
							    lens_v, &err_v),
					    "kind %u: %s", g.kind, vec_modes[m].mode);
			TEST_ASSERT(got_v == got_s && err_v == err_s &&
				    memcmp(lens_s, lens_v, got_s * sizeof(*lens_s)) == 0,
				    "kind %u: %s delivered %u frames, %" PRIu64 " errors; scalar "
				    "%u, %" PRIu64, g.kind, vec_modes[m].mode, got_v, err_v, got_s,
				    err_s);
		}
	}
	return TEST_SUCCESS;
}

/*
 * Which bursts a port runs, chosen at each start: simd=auto follows EAL's
 * SIMD limit (--force-max-simd-bitwidth; set here at run time, as the
 * option would), simd=sse and simd=avx2 do not, simd=scalar is scalar, and
 * simd=avx2 on a CPU without AVX2 gets SSE. burst_mode_get says which.
 */
static int
test_vector_burst_choice(void)
{
	static const struct {
		const char *simd;
		uint16_t bits;
		const char *with_avx2, *sse_only;	/* what the CPU has */
	} cases[] = {
		{ "auto", RTE_VECT_SIMD_DISABLED, "Scalar", "Scalar" },
		{ "auto", RTE_VECT_SIMD_128, "Vector SSE", "Vector SSE" },
		{ "auto", RTE_VECT_SIMD_256, "Vector AVX2", "Vector SSE" },
		{ "auto", RTE_VECT_SIMD_512, "Vector AVX2", "Vector SSE" },
		{ "auto", RTE_VECT_SIMD_128, "Vector SSE", "Vector SSE" },	/* back down */
		{ "scalar", RTE_VECT_SIMD_512, "Scalar", "Scalar" },
		{ "sse", RTE_VECT_SIMD_DISABLED, "Vector SSE", "Vector SSE" },
		{ "sse", RTE_VECT_SIMD_512, "Vector SSE", "Vector SSE" },
		{ "avx2", RTE_VECT_SIMD_DISABLED, "Vector AVX2", "Vector SSE" },
		{ "avx2", RTE_VECT_SIMD_128, "Vector AVX2", "Vector SSE" },
	};
	static const struct vec_case c = { 64, 1, 0, 0, RTE_ETHER_MTU, 0, 0 };
	char args[32];
	const struct test_pair_conf pair = {
		.name_a = "net_refnic_va", .name_b = "net_refnic_vb", .args_a = args,
	};
	uint16_t bits = rte_vect_get_max_simd_bitwidth();
	bool avx2 = rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) == 1;
	const char *simd = NULL;
	unsigned int i;
	uint16_t a, b;
	int ret = 0;

	if (rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_2) != 1 ||
	    rte_vect_set_max_simd_bitwidth(bits) != 0)	/* forced on the command line */
		return TEST_SKIPPED;
	for (i = 0; ret == 0 && i < RTE_DIM(cases); i++) {
		const char *want = avx2 ? cases[i].with_avx2 : cases[i].sse_only;

		if (simd == NULL || strcmp(simd, cases[i].simd) != 0) {
			if (simd != NULL)
				test_pair_teardown(&pair);
			simd = cases[i].simd;
			snprintf(args, sizeof(args), "simd=%s", simd);
			ret = test_pair_probe(&pair, &a, &b);
			if (ret != 0) {
				simd = NULL;
				break;
			}
			ret = vec_port_start(a, &c);
		}
		/* The choice is made at start. */
		if (ret == 0)
			ret = rte_vect_set_max_simd_bitwidth(cases[i].bits);
		if (ret == 0)
			ret = rte_eth_dev_stop(a);
		if (ret == 0)
			ret = rte_eth_dev_start(a);
		if (ret == 0 && !vec_mode_is(a, want)) {
			printf("simd=%s, EAL's limit %u bits: not %s\n", simd, cases[i].bits, want);
			ret = -EINVAL;
		}
	}
	if (simd != NULL)
		test_pair_teardown(&pair);
	rte_vect_set_max_simd_bitwidth(bits);
	TEST_ASSERT_SUCCESS(ret, "case %u", i - 1);
	return TEST_SUCCESS;
}

static int
vec_setup(void)
{
	vec_pool = rte_pktmbuf_pool_create("refnic_vec", 2 * NB_QUEUES * 4096 + 4096, 256, 0,
					   RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	return vec_pool != NULL ? TEST_SUCCESS : TEST_FAILED;
}

static void
vec_teardown(void)
{
	rte_mempool_free(vec_pool);
}

const struct unit_test_suite refnic_vector_suite = {
	.name = "vector",
	.setup = vec_setup,
	.teardown = vec_teardown,
	.cases = {
		TEST_CASE(test_vector_matches_scalar),
		TEST_CASE(test_device_vector_matches_scalar),
		TEST_CASE(test_vector_burst_choice),
		TEST_CASE(test_vector_bad_completion),
		TEST_CASE(test_vector_bad_lone_completion),
		TEST_CASES_END()
	},
};
