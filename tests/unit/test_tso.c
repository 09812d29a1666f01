/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * TCP segmentation (REFNIC_CAP_TSO): one TSO packet from port A comes out
 * of port B as the frames the contract says, checked byte by byte: each
 * frame's headers against the packet's (lengths, IPv4 id, sequence number,
 * flags), its checksums by DPDK's own functions, its payload against the
 * packet's at its offset. Inputs are chains cut at odd offsets, the headers
 * split across mbufs too; MSS edge cases. tx_prepare refuses what the device
 * cannot segment, and a device without TSO drops and counts what it is
 * handed anyway.
 */

#include <rte_ip.h>
#include <rte_tcp.h>

#include "test_common.h"

#define TA		"net_refnic_ta"
#define TB		"net_refnic_tb"
#define NA		"net_refnic_tna"	/* a pair without TSO */
#define NB		"net_refnic_tnb"
#define SEG_ROOM	2000			/* bytes per mbuf of a chain, at most */
#define MAX_FRAMES	1100
#define SEQ0		0xffff0000u		/* wraps within a 64 KiB packet */
#define IP_ID0		0xfffe			/* wraps at the third frame */
#define FLAGS0		(RTE_TCP_CWR_FLAG | RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG | \
			 RTE_TCP_FIN_FLAG)
#define TSO_TX_OFFLOADS	(RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_MULTI_SEGS | \
			 RTE_ETH_TX_OFFLOAD_VLAN_INSERT)

static uint16_t port_a, port_b;
static uint8_t pkt_buf[REFNIC_MAX_TSO_SIZE + 256];
static uint8_t frame_buf[REFNIC_MAX_FRAME_LEN + 4];
static struct rte_mbuf *rx[MAX_FRAMES];

struct tso_case {
	const char *what;
	bool v6;
	uint32_t payload;
	uint16_t mss;
	uint16_t nb_segs;	/* mbufs the packet is cut into */
	uint16_t first_len;	/* bytes in the first one; 0: as the others */
	uint8_t tcp_opt;	/* TCP option bytes, a multiple of 4 */
	bool vlan;		/* insert a tag too */
};

static int
tso_setup(void)
{
	if (test_pair_create(TA, TB, &port_a, &port_b) != 0)
		return TEST_FAILED;
	if (test_port_start_offloads(port_a, 0, TSO_TX_OFFLOADS, 0) != 0 ||
	    test_port_start_offloads(port_b, 0, 0, 0) != 0) {
		test_pair_destroy(TA, TB);
		return TEST_FAILED;
	}
	return TEST_SUCCESS;
}

static void
tso_teardown(void)
{
	test_pair_destroy(TA, TB);
}

/* Payload byte k: depends on k, so a frame out of place shows. */
static inline uint8_t
pay_byte(uint32_t k)
{
	return (uint8_t)(k * 7 + (k >> 8) + 1);
}

static uint32_t
l3_len(const struct tso_case *c)
{
	return c->v6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr);
}

static uint32_t
hdr_len(const struct tso_case *c)
{
	return RTE_ETHER_HDR_LEN + l3_len(c) + sizeof(struct rte_tcp_hdr) + c->tcp_opt;
}

/* The packet, linear, in pkt_buf; returns its length. */
static uint32_t
tso_bytes(const struct tso_case *c)
{
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)pkt_buf;
	uint8_t *l3 = pkt_buf + RTE_ETHER_HDR_LEN;
	struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)(l3 + l3_len(c));
	uint32_t hlen = hdr_len(c), k;

	memset(pkt_buf, 0, hlen);
	memset(&eh->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	eh->src_addr.addr_bytes[0] = 0x02;
	eh->src_addr.addr_bytes[5] = 0x5a;
	if (c->v6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;

		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
		ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip->payload_len = rte_cpu_to_be_16(0xdead);	/* the device's to set */
		ip->proto = IPPROTO_TCP;
		ip->hop_limits = 64;
		REFNIC_IPV6_BYTES(ip->src_addr)[0] = 0xfd;
		REFNIC_IPV6_BYTES(ip->src_addr)[15] = 1;
		REFNIC_IPV6_BYTES(ip->dst_addr)[0] = 0xfd;
		REFNIC_IPV6_BYTES(ip->dst_addr)[15] = 2;
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16(0xdead);
		ip->packet_id = rte_cpu_to_be_16(IP_ID0);
		ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_TCP;
		ip->hdr_checksum = 0xbeef;
		ip->src_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 1));
		ip->dst_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 2));
	}
	th->src_port = rte_cpu_to_be_16(5001);
	th->dst_port = rte_cpu_to_be_16(80);
	th->sent_seq = rte_cpu_to_be_32(SEQ0);
	th->recv_ack = rte_cpu_to_be_32(0x12345678);
	th->data_off = (uint8_t)((sizeof(*th) + c->tcp_opt) / 4) << 4;
	th->tcp_flags = FLAGS0;
	th->rx_win = rte_cpu_to_be_16(65535);
	th->cksum = 0xbeef;
	for (k = 0; k < c->tcp_opt; k++)	/* NOPs, then a recognisable byte */
		((uint8_t *)(th + 1))[k] = k + 1 == c->tcp_opt ? 0x42 : 1;
	for (k = 0; k < c->payload; k++)
		pkt_buf[hlen + k] = pay_byte(k);
	return hlen + c->payload;
}

/* The packet as a chain of c->nb_segs mbufs, cut at odd offsets. */
static struct rte_mbuf *
tso_pkt(const struct tso_case *c)
{
	uint32_t len = tso_bytes(c), off = 0, chunk;
	struct rte_mbuf *head = NULL, *m;
	uint16_t s;

	chunk = c->nb_segs > 1 ? (len - c->first_len) / (c->nb_segs - (c->first_len != 0)) | 1 :
		len;
	for (s = 0; s < c->nb_segs; s++) {
		uint32_t n = s + 1 == c->nb_segs ? len - off :
			     s == 0 && c->first_len != 0 ? c->first_len : chunk;

		m = rte_pktmbuf_alloc(test_pool);
		if (m == NULL || n > SEG_ROOM || rte_pktmbuf_append(m, n) == NULL) {
			printf("    cannot cut %u bytes into %u mbufs\n", len, c->nb_segs);
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		memcpy(rte_pktmbuf_mtod(m, void *), pkt_buf + off, n);
		off += n;
		if (head == NULL)
			head = m;
		else if (rte_pktmbuf_chain(head, m) != 0)
			return NULL;
	}
	head->ol_flags = RTE_MBUF_F_TX_TCP_SEG |
			 (c->v6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM);
	head->l2_len = RTE_ETHER_HDR_LEN;
	head->l3_len = l3_len(c);
	head->l4_len = sizeof(struct rte_tcp_hdr) + c->tcp_opt;
	head->tso_segsz = c->mss;
	if (c->vlan) {
		head->ol_flags |= RTE_MBUF_F_TX_VLAN;
		head->vlan_tci = 0x0123;
	}
	return head;
}

static uint32_t
tso_nb_frames(const struct tso_case *c)
{
	return c->payload == 0 ? 1 : (c->payload + c->mss - 1) / c->mss;
}

/* Frame i of case c, as B received it, against the packet in pkt_buf. */
static int
tso_frame_check(const struct tso_case *c, uint32_t i, const struct rte_mbuf *m)
{
	uint32_t nb = tso_nb_frames(c), tag = c->vlan ? 4 : 0, hlen = hdr_len(c);
	uint32_t pay = RTE_MIN((uint32_t)c->mss, c->payload - i * c->mss);
	uint32_t l3 = RTE_ETHER_HDR_LEN + tag, l4 = l3 + l3_len(c);
	const uint8_t *ref = pkt_buf, *p;
	const struct rte_tcp_hdr *th, *rth;
	uint8_t flags = FLAGS0;

	TEST_ASSERT_EQUAL(m->pkt_len, hlen + tag + pay, "%s: frame %u: %u bytes", c->what, i,
			  m->pkt_len);
	p = rte_pktmbuf_read(m, 0, m->pkt_len, frame_buf);
	TEST_ASSERT(p != NULL, "");
	if (p != frame_buf)
		memcpy(frame_buf, p, m->pkt_len);
	p = frame_buf;
	/* Ethernet: the packet's, with the tag after the addresses if asked. */
	TEST_ASSERT(memcmp(p, ref, 12) == 0 &&
		    memcmp(p + 12 + tag, ref + 12, 2) == 0, "%s: frame %u: Ethernet", c->what, i);
	if (c->vlan)
		TEST_ASSERT(p[12] == 0x81 && p[13] == 0 && p[14] == 0x01 && p[15] == 0x23,
			    "%s: frame %u: VLAN tag", c->what, i);
	if (c->v6) {
		const struct rte_ipv6_hdr *ip = (const void *)(p + l3);
		struct rte_ipv6_hdr want;

		memcpy(&want, ref + RTE_ETHER_HDR_LEN, sizeof(want));
		want.payload_len = rte_cpu_to_be_16(hlen - RTE_ETHER_HDR_LEN - sizeof(want) + pay);
		TEST_ASSERT(memcmp(ip, &want, sizeof(want)) == 0, "%s: frame %u: IPv6 header",
			    c->what, i);
		TEST_ASSERT_EQUAL(rte_ipv6_udptcp_cksum_verify(ip, p + l4), 0,
				  "%s: frame %u: TCP checksum", c->what, i);
	} else {
		const struct rte_ipv4_hdr *ip = (const void *)(p + l3);
		struct rte_ipv4_hdr want, got;

		memcpy(&want, ref + RTE_ETHER_HDR_LEN, sizeof(want));
		want.total_length = rte_cpu_to_be_16(hlen - RTE_ETHER_HDR_LEN + pay);
		want.packet_id = rte_cpu_to_be_16((uint16_t)(IP_ID0 + i));
		memcpy(&got, ip, sizeof(got));
		TEST_ASSERT(got.hdr_checksum != 0 && rte_ipv4_cksum(&got) == 0,
			    "%s: frame %u: IPv4 header checksum", c->what, i);
		want.hdr_checksum = got.hdr_checksum;
		TEST_ASSERT(memcmp(&got, &want, sizeof(want)) == 0,
			    "%s: frame %u: IPv4 header (length %u, id 0x%x)", c->what, i,
			    rte_be_to_cpu_16(got.total_length), rte_be_to_cpu_16(got.packet_id));
		TEST_ASSERT_EQUAL(rte_ipv4_udptcp_cksum_verify(ip, p + l4), 0,
				  "%s: frame %u: TCP checksum", c->what, i);
	}
	th = (const void *)(p + l4);
	rth = (const void *)(ref + RTE_ETHER_HDR_LEN + l3_len(c));
	if (i != 0)
		flags &= ~RTE_TCP_CWR_FLAG;
	if (i + 1 != nb)
		flags &= ~(RTE_TCP_PSH_FLAG | RTE_TCP_FIN_FLAG);
	TEST_ASSERT_EQUAL(rte_be_to_cpu_32(th->sent_seq), (uint32_t)(SEQ0 + i * c->mss),
			  "%s: frame %u: sequence number", c->what, i);
	TEST_ASSERT_EQUAL(th->tcp_flags, flags, "%s: frame %u: TCP flags", c->what, i);
	TEST_ASSERT(th->src_port == rth->src_port && th->dst_port == rth->dst_port &&
		    th->recv_ack == rth->recv_ack && th->data_off == rth->data_off &&
		    th->rx_win == rth->rx_win && th->tcp_urp == rth->tcp_urp &&
		    memcmp(th + 1, rth + 1, c->tcp_opt) == 0,
		    "%s: frame %u: TCP header", c->what, i);
	TEST_ASSERT(memcmp(p + hlen + tag, ref + hlen + i * c->mss, pay) == 0,
		    "%s: frame %u: payload not the packet's bytes %u..%u", c->what, i,
		    i * c->mss, i * c->mss + pay - 1);
	return TEST_SUCCESS;
}

static uint64_t
ostats(uint16_t port, bool rx_side)
{
	struct rte_eth_stats st;

	if (rte_eth_stats_get(port, &st) != 0)
		return UINT64_MAX;
	return rx_side ? st.ipackets : st.opackets;
}

/* Send case c's packet A->B; every frame B gets, checked; the counts exact. */
static int
tso_run(const struct tso_case *c)
{
	uint32_t nb = tso_nb_frames(c), i, got = 0;
	struct rte_mbuf *m = tso_pkt(c), *extra;
	int ret = TEST_SUCCESS;

	TEST_ASSERT(m != NULL, "%s: no packet", c->what);
	TEST_ASSERT(nb <= MAX_FRAMES, "");
	rte_eth_xstats_reset(port_a);
	rte_eth_stats_reset(port_b);
	rte_errno = 0;
	if (rte_eth_tx_prepare(port_a, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		TEST_ASSERT(false, "%s: tx_prepare refused it: %s", c->what, strerror(rte_errno));
	}
	TEST_ASSERT_EQUAL(test_tx_all(port_a, &m, 1), 1, "%s: not sent", c->what);
	while (got < nb) {
		uint16_t n = test_rx_wait(port_b, rx + got,
					  RTE_MIN(nb - got, (uint32_t)TEST_BURST));

		if (n == 0)
			break;
		got += n;
	}
	for (i = 0; i < got && ret == TEST_SUCCESS; i++)
		ret = tso_frame_check(c, i, rx[i]);
	for (i = 0; i < got; i++)
		rte_pktmbuf_free(rx[i]);
	if (ret != TEST_SUCCESS)
		return ret;
	TEST_ASSERT_EQUAL(got, nb, "%s: %u frames of %u", c->what, got, nb);
	TEST_ASSERT_EQUAL(test_rx_wait_ms(port_b, &extra, 1, 20), 0, "%s: a frame too many",
			  c->what);
	TEST_ASSERT_EQUAL(ostats(port_b, true), nb, "%s: B's ipackets", c->what);
	TEST_ASSERT_EQUAL(ostats(port_a, false), nb, "%s: A's opackets (frames on the wire)",
			  c->what);
	TEST_ASSERT_EQUAL(test_xstat(port_a, "tx_tso_packets"), 1, "%s", c->what);
	TEST_ASSERT_EQUAL(test_xstat(port_a, "tx_tso_segments"), nb, "%s", c->what);
	return TEST_SUCCESS;
}

static int
test_tso_segments(void)
{
	static const struct tso_case cases[] = {
		{ "IPv4, payload 3 x MSS", false, 3 * 1000, 1000, 2, 0, 0, false },
		{ "IPv4, 3 x MSS + 1, 3 mbufs", false, 3 * 1000 + 1, 1000, 3, 0, 0, false },
		{ "IPv4, MSS above the payload", false, 500, 1400, 1, 0, 0, false },
		{ "IPv4, the smallest MSS", false, 5 * REFNIC_MIN_TSO_MSS + 3,
		  REFNIC_MIN_TSO_MSS, 2, 0, 0, false },
		{ "IPv4, headers over 3 mbufs", false, 4000, 1448, 5, 20, 0, false },
		{ "IPv6, 7 mbufs", true, 7 * 1220 - 3, 1220, 7, 0, 0, false },
		{ "IPv6, headers split, TCP options", true, 2 * 1400 + 1, 1400, 4, 61, 12, false },
		{ "IPv4, VLAN tag inserted", false, 3000, 1448, 2, 0, 12, true },
		{ "IPv6, VLAN tag inserted", true, 5000, 1000, 3, 0, 0, true },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++)
		if (tso_run(&cases[i]) != TEST_SUCCESS)
			return TEST_FAILED;
	return TEST_SUCCESS;
}

/* The largest packet the device says it takes, in as many mbufs as needed. */
static int
test_tso_largest(void)
{
	struct rte_eth_dev_info info;
	struct tso_case c = { "IPv4, the largest packet", false, 0, 1448, 0, 0, 0, false };

	TEST_ASSERT_SUCCESS(rte_eth_dev_info_get(port_a, &info), "");
	c.payload = REFNIC_MAX_TSO_SIZE - hdr_len(&c);
	c.nb_segs = REFNIC_MAX_TSO_SIZE / (SEG_ROOM - 100) + 1;
	TEST_ASSERT(c.nb_segs <= info.tx_desc_lim.nb_seg_max, "%u mbufs, the port takes %u",
		    c.nb_segs, info.tx_desc_lim.nb_seg_max);
	return tso_run(&c);
}

/* What a port offers: TSO, and more descriptors for a TSO packet than a frame. */
static int
test_tso_dev_info(void)
{
	struct rte_eth_dev_info info;

	TEST_ASSERT_SUCCESS(rte_eth_dev_info_get(port_a, &info), "");
	TEST_ASSERT(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_TCP_TSO, "TSO not offered");
	TEST_ASSERT_EQUAL(info.tx_desc_lim.nb_seg_max, REFNIC_MAX_TSO_SEGS, "");
	TEST_ASSERT_EQUAL(info.tx_desc_lim.nb_mtu_seg_max, REFNIC_MAX_TX_SEGS, "");
	return TEST_SUCCESS;
}

/* What tx_prepare is handed to refuse: one thing wrong with a sound packet. */
enum tso_fault {
	TSO_SOUND,
	TSO_MSS_SMALL,		/* below REFNIC_MIN_TSO_MSS */
	TSO_MSS_BIG,		/* a frame above REFNIC_MAX_FRAME_LEN */
	TSO_L4_SHORT,
	TSO_L4_LONG,
	TSO_NO_IP,		/* neither TX_IPV4 nor TX_IPV6 */
	TSO_UDP,
	TSO_L3_SHORT,		/* a 20-byte IPv6 header */
	TSO_IP_CSUM,		/* an IPv4 header checksum on IPv6 */
};

static void
tso_fault_plant(struct rte_mbuf *m, enum tso_fault fault)
{
	switch (fault) {
	case TSO_SOUND:
		break;
	case TSO_MSS_SMALL:
		m->tso_segsz = REFNIC_MIN_TSO_MSS - 1;
		break;
	case TSO_MSS_BIG:
		m->tso_segsz = REFNIC_MAX_FRAME_LEN - (m->l2_len + m->l3_len + m->l4_len) + 1;
		break;
	case TSO_L4_SHORT:
		m->l4_len = 16;
		break;
	case TSO_L4_LONG:
		m->l4_len = 64;
		break;
	case TSO_NO_IP:
		m->ol_flags &= ~(RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM);
		break;
	case TSO_UDP:
		m->ol_flags |= RTE_MBUF_F_TX_UDP_CKSUM;
		break;
	case TSO_L3_SHORT:
		m->l3_len = sizeof(struct rte_ipv4_hdr);
		break;
	case TSO_IP_CSUM:
		m->ol_flags |= RTE_MBUF_F_TX_IP_CKSUM;
		break;
	}
}

/* tx_prepare's answer for case c's packet with fault planted: 0 if taken. */
static int
prepare_errno(const struct tso_case *c, enum tso_fault fault)
{
	struct rte_mbuf *m = tso_pkt(c);
	int err;

	if (m == NULL)
		return -1;
	tso_fault_plant(m, fault);
	rte_errno = 0;
	err = rte_eth_tx_prepare(port_a, 0, &m, 1) == 1 ? 0 : rte_errno;
	rte_pktmbuf_free(m);
	return err;
}

static int
test_tso_prepare_refuses(void)
{
	const struct tso_case v4 = { "v4", false, 3000, 1000, 2, 0, 0, false };
	const struct tso_case v6 = { "v6", true, 3000, 1000, 2, 0, 0, false };
	struct tso_case c = v4;
	struct rte_eth_dev_info info;

	TEST_ASSERT_SUCCESS(rte_eth_dev_info_get(port_a, &info), "");
	TEST_ASSERT_EQUAL(prepare_errno(&v4, TSO_SOUND), 0, "a sound IPv4 one");
	TEST_ASSERT_EQUAL(prepare_errno(&v6, TSO_SOUND), 0, "a sound IPv6 one");
	TEST_ASSERT_EQUAL(prepare_errno(&v4, TSO_MSS_SMALL), EINVAL, "MSS below the smallest");
	TEST_ASSERT_EQUAL(prepare_errno(&v4, TSO_MSS_BIG), EINVAL, "a frame above the largest");
	TEST_ASSERT_EQUAL(prepare_errno(&v4, TSO_L4_SHORT), EINVAL, "a 16-byte TCP header");
	TEST_ASSERT_EQUAL(prepare_errno(&v4, TSO_L4_LONG), EINVAL, "a 64-byte TCP header");
	TEST_ASSERT_EQUAL(prepare_errno(&v4, TSO_NO_IP), EINVAL, "no IP version");
	TEST_ASSERT_EQUAL(prepare_errno(&v4, TSO_UDP), EINVAL, "UDP");
	TEST_ASSERT_EQUAL(prepare_errno(&v6, TSO_L3_SHORT), EINVAL, "a 20-byte IPv6 header");
	TEST_ASSERT_EQUAL(prepare_errno(&v6, TSO_IP_CSUM), EINVAL, "IPv4 checksum on IPv6");
	/* One descriptor more than the device takes, and one byte more. */
	c.nb_segs = info.tx_desc_lim.nb_seg_max + 1;
	c.payload = c.nb_segs * 100;
	TEST_ASSERT_EQUAL(prepare_errno(&c, TSO_SOUND), EINVAL, "%u mbufs", c.nb_segs);
	c.nb_segs = info.tx_desc_lim.nb_seg_max;
	c.payload = REFNIC_MAX_TSO_SIZE + 1 - hdr_len(&c);
	TEST_ASSERT_EQUAL(prepare_errno(&c, TSO_SOUND), EINVAL, "%u bytes",
			  REFNIC_MAX_TSO_SIZE + 1);
	c.payload--;
	TEST_ASSERT_EQUAL(prepare_errno(&c, TSO_SOUND), 0, "%u bytes", REFNIC_MAX_TSO_SIZE);
	return TEST_SUCCESS;
}

/*
 * A device whose TSO is off (caps_off=tso) offers none, and no more
 * descriptors than for a frame; tx_prepare says ENOTSUP; a TSO
 * packet sent anyway reaches the device, which drops it whole and counts
 * it (tx_malformed), and goes on sending what follows.
 */
static int
test_tso_device_without(void)
{
	const struct tso_case c = { "v4", false, 3000, 1000, 2, 0, 0, false };
	struct rte_mbuf *m, *plain, *got[4];
	struct rte_eth_dev_info info;
	uint16_t a, b, n;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_port_create(NA, "cable=" NA ",caps_off=tso,profile=ideal", &a),
			    "");
	if (test_port_create(NB, "cable=" NA ",caps_off=tso,profile=ideal", &b) != 0) {
		test_port_destroy(NA);
		return TEST_FAILED;
	}
	if (rte_eth_dev_info_get(a, &info) != 0 ||
	    (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_TCP_TSO) ||
	    info.tx_desc_lim.nb_seg_max != REFNIC_MAX_TX_SEGS) {
		printf("    caps_off=tso: TSO offered, or %u descriptors\n",
		       info.tx_desc_lim.nb_seg_max);
		goto out;
	}
	if (test_port_start_offloads(a, 0, RTE_ETH_TX_OFFLOAD_MULTI_SEGS, 0) != 0 ||
	    test_port_start_offloads(b, 0, 0, 0) != 0)
		goto out;
	m = tso_pkt(&c);
	rte_errno = 0;
	n = rte_eth_tx_prepare(a, 0, &m, 1);
	if (n != 0 || rte_errno != ENOTSUP) {
		printf("    tx_prepare: %u taken, rte_errno %d; expected 0, ENOTSUP\n", n,
		       rte_errno);
		rte_pktmbuf_free(m);
		goto out;
	}
	plain = test_make_l4_pkt(false, IPPROTO_TCP, true, 1, 100);
	if (test_tx_all(a, &m, 1) != 1 || test_tx_all(a, &plain, 1) != 1)
		goto out;
	n = test_rx_wait(b, got, RTE_DIM(got));
	rte_pktmbuf_free_bulk(got, n);
	if (n != 1 || test_xstat(a, "tx_malformed") != 1 || test_xstat(a, "tx_tso_packets") != 1) {
		printf("    B got %u frames (expected the plain one), A's tx_malformed %" PRIu64
		       " (expected 1)\n", n, test_xstat(a, "tx_malformed"));
		goto out;
	}
	ret = TEST_SUCCESS;
out:
	test_pair_destroy(NA, NB);
	return ret;
}

const struct unit_test_suite refnic_tso_suite = {
	.name = "tso",
	.setup = tso_setup,
	.teardown = tso_teardown,
	.cases = {
		TEST_CASE(test_tso_dev_info),
		TEST_CASE(test_tso_segments),
		TEST_CASE(test_tso_largest),
		TEST_CASE(test_tso_prepare_refuses),
		TEST_CASE(test_tso_device_without),
		TEST_CASES_END()
	},
};
