/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Offloads done by the device: checksums inserted on TX (checked byte by
 * byte with DPDK's own checksum functions), verified on RX (good and
 * corrupted frames), VLAN tags inserted and stripped, tx_prepare refusals.
 */

#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "test_common.h"

#define OA	"net_refnic_oa"
#define OB	"net_refnic_ob"
#define PAYLOAD	100

static uint16_t port_a, port_b;

static int
off_setup(void)
{
	return test_pair_create(OA, OB, &port_a, &port_b) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static void
off_teardown(void)
{
	test_pair_destroy(OA, OB);
}

static struct rte_mbuf *
l4_frame(bool v6, uint8_t proto, bool csum_ok, uint16_t nb_segs)
{
	return test_make_l4_pkt(v6, proto, csum_ok, nb_segs, PAYLOAD);
}

/* Send one frame A->B, return what B received (or NULL). */
static struct rte_mbuf *
off_cross(struct rte_mbuf *m)
{
	struct rte_mbuf *rx;

	if (m == NULL || test_tx_all(port_a, &m, 1) != 1)
		return NULL;
	return test_rx_wait(port_b, &rx, 1) == 1 ? rx : NULL;
}

/* Checksums the device wrote, recomputed by DPDK over the received frame. */
static bool
csums_right(struct rte_mbuf *m, bool v6, uint8_t proto)
{
	uint8_t buf[512];
	const uint8_t *p = rte_pktmbuf_read(m, 0, m->pkt_len, buf);
	uint32_t l3 = sizeof(struct rte_ether_hdr);
	uint32_t l4 = l3 + (v6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr));
	uint16_t got, want;

	if (p == NULL || m->pkt_len > sizeof(buf))
		return false;
	memcpy(buf, p, m->pkt_len);
	memcpy(&got, buf + l4 + (proto == IPPROTO_TCP ? 16 : 6), 2);
	memset(buf + l4 + (proto == IPPROTO_TCP ? 16 : 6), 0, 2);
	if (v6) {
		want = rte_ipv6_udptcp_cksum((struct rte_ipv6_hdr *)(buf + l3), buf + l4);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + l3);
		uint16_t ip_got = ip->hdr_checksum;

		ip->hdr_checksum = 0;
		if (ip_got == 0 || ip_got != rte_ipv4_cksum(ip))
			return false;
		ip->hdr_checksum = ip_got;
		want = rte_ipv4_udptcp_cksum(ip, buf + l4);
	}
	return got != 0 && got == want;
}

static int
test_tx_checksum_insertion(void)
{
	static const struct { bool v6; uint8_t proto; uint16_t segs; uint32_t payload; } cases[] = {
		{ false, IPPROTO_TCP, 1, PAYLOAD }, { false, IPPROTO_UDP, 1, PAYLOAD },
		{ true, IPPROTO_TCP, 1, PAYLOAD }, { true, IPPROTO_UDP, 1, PAYLOAD },
		{ false, IPPROTO_TCP, 2, PAYLOAD }, { true, IPPROTO_UDP, 2, PAYLOAD },
		{ false, IPPROTO_UDP, 1, 2 },	/* padded to 60 bytes */
	};
	unsigned int i;

	TEST_ASSERT_SUCCESS(test_port_start_offloads(port_a, 0, RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
				      RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
				      RTE_ETH_TX_OFFLOAD_MULTI_SEGS, 0), "");
	TEST_ASSERT_SUCCESS(test_port_start_offloads(port_b, 0, 0, 0), "");
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct rte_mbuf *m = test_make_l4_pkt(cases[i].v6, cases[i].proto, false,
						    cases[i].segs, cases[i].payload);
		struct rte_mbuf *rx;
		bool ok;

		m->ol_flags |= (cases[i].proto == IPPROTO_TCP ? RTE_MBUF_F_TX_TCP_CKSUM :
				RTE_MBUF_F_TX_UDP_CKSUM) |
			       (cases[i].v6 ? RTE_MBUF_F_TX_IPV6 :
				RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM);
		TEST_ASSERT_EQUAL(rte_eth_tx_prepare(port_a, 0, &m, 1), 1, "case %u", i);
		rx = off_cross(m);
		TEST_ASSERT(rx != NULL, "case %u not received", i);
		ok = csums_right(rx, cases[i].v6, cases[i].proto);
		rte_pktmbuf_free(rx);
		TEST_ASSERT(ok, "case %u: %s/%s in %u segments: wrong checksums", i,
			    cases[i].v6 ? "IPv6" : "IPv4",
			    cases[i].proto == IPPROTO_TCP ? "TCP" : "UDP", cases[i].segs);
	}
	return TEST_SUCCESS;
}

static int
test_rx_checksum_flags(void)
{
	static const struct { bool v6; uint8_t proto; int corrupt; uint64_t want; } cases[] = {
		{ false, IPPROTO_TCP, 0, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD },
		{ false, IPPROTO_UDP, 3, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD },
		{ false, IPPROTO_TCP, 3, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD },
		{ false, IPPROTO_UDP, 0, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD },
		{ true, IPPROTO_TCP, 0, RTE_MBUF_F_RX_L4_CKSUM_GOOD },
		{ false, IPPROTO_TCP, 1, RTE_MBUF_F_RX_IP_CKSUM_BAD | RTE_MBUF_F_RX_L4_CKSUM_GOOD },
		{ false, IPPROTO_TCP, 2, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_BAD },
		{ true, IPPROTO_UDP, 2, RTE_MBUF_F_RX_L4_CKSUM_BAD },
	};
	const uint64_t mask = RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK;
	unsigned int i;

	TEST_ASSERT_SUCCESS(test_port_start_offloads(port_a, 0, 0, 0), "");
	TEST_ASSERT_SUCCESS(test_port_start_offloads(port_b, RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
				      RTE_ETH_RX_OFFLOAD_TCP_CKSUM |
				      RTE_ETH_RX_OFFLOAD_UDP_CKSUM, 0, 0), "");
	for (i = 0; i < RTE_DIM(cases); i++) {
		/* corrupt 3: not corrupt, but padded (a 2-byte payload). */
		struct rte_mbuf *m = test_make_l4_pkt(cases[i].v6, cases[i].proto, true, 1,
						    cases[i].corrupt == 3 ? 2 : PAYLOAD), *rx;
		uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
		uint32_t ptype;
		uint64_t got;

		if (cases[i].corrupt == 1)
			p[sizeof(struct rte_ether_hdr) + 10] ^= 0x5a;	/* IPv4 checksum */
		else if (cases[i].corrupt == 2)
			p[m->pkt_len - 1] ^= 0x5a;			/* payload */
		rx = off_cross(m);
		TEST_ASSERT(rx != NULL, "case %u not received", i);
		got = rx->ol_flags & mask;
		ptype = rx->packet_type;
		rte_pktmbuf_free(rx);
		TEST_ASSERT_EQUAL(got, cases[i].want, "case %u: checksum flags", i);
		TEST_ASSERT_EQUAL(ptype, RTE_PTYPE_L2_ETHER |
				  (cases[i].v6 ? RTE_PTYPE_L3_IPV6_EXT_UNKNOWN :
				   RTE_PTYPE_L3_IPV4_EXT_UNKNOWN) |
				  (cases[i].proto == IPPROTO_TCP ? RTE_PTYPE_L4_TCP : RTE_PTYPE_L4_UDP),
				  "case %u: packet type", i);
	}
	return TEST_SUCCESS;
}

enum csum_edge {
	EDGE_V4_FIRST_FRAGMENT,		/* MF set */
	EDGE_V4_FIRST_FRAGMENT_CORRUPT,
	EDGE_V4_LATER_FRAGMENT,		/* a fragment offset */
	EDGE_V4_UDP_NO_CSUM,		/* UDP checksum 0: none sent (RFC 768) */
	EDGE_V6_UDP_ZERO_CSUM,		/* not allowed over IPv6 (RFC 8200) */
	EDGE_V6_HOP_BY_HOP,		/* an extension header before TCP */
	EDGE_V4_TAGGED,			/* a VLAN tag the port keeps */
	EDGE_V4_TAGGED_CORRUPT,
};

/* An IPv6 TCP frame with an 8-byte hop-by-hop header (PadN) before TCP:
 * the TCP checksum stays right (the pseudo-header is the same). */
static struct rte_mbuf *
v6_hop_by_hop_frame(void)
{
	const uint32_t l4 = sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv6_hdr);
	static const uint8_t hbh[8] = { IPPROTO_TCP, 0, 1, 4, 0, 0, 0, 0 };
	struct rte_mbuf *src = l4_frame(true, IPPROTO_TCP, true, 1), *m;
	struct rte_ipv6_hdr *ip6;
	uint8_t *p;

	m = src != NULL ? rte_pktmbuf_alloc(test_pool) : NULL;
	p = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, src->pkt_len + sizeof(hbh)) : NULL;
	if (p == NULL) {
		rte_pktmbuf_free(src);
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, rte_pktmbuf_mtod(src, uint8_t *), l4);
	memcpy(p + l4, hbh, sizeof(hbh));
	memcpy(p + l4 + sizeof(hbh), rte_pktmbuf_mtod_offset(src, uint8_t *, l4), src->pkt_len - l4);
	ip6 = (struct rte_ipv6_hdr *)(p + sizeof(struct rte_ether_hdr));
	ip6->proto = IPPROTO_HOPOPTS;
	ip6->payload_len = rte_cpu_to_be_16(rte_be_to_cpu_16(ip6->payload_len) + sizeof(hbh));
	rte_pktmbuf_free(src);
	return m;
}

static struct rte_mbuf *
csum_edge_frame(enum csum_edge e)
{
	const uint32_t l3 = sizeof(struct rte_ether_hdr);
	bool v6 = e == EDGE_V6_UDP_ZERO_CSUM;
	uint8_t proto = e == EDGE_V4_UDP_NO_CSUM || e == EDGE_V6_UDP_ZERO_CSUM ||
			e <= EDGE_V4_LATER_FRAGMENT ? IPPROTO_UDP : IPPROTO_TCP;
	struct rte_mbuf *m = e == EDGE_V6_HOP_BY_HOP ? v6_hop_by_hop_frame() :
			     l4_frame(v6, proto, true, 1);
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;

	if (m == NULL)
		return NULL;
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, l3);
	udp = rte_pktmbuf_mtod_offset(m, struct rte_udp_hdr *,
				      l3 + (v6 ? sizeof(struct rte_ipv6_hdr) : sizeof(*ip)));
	switch (e) {
	case EDGE_V4_FIRST_FRAGMENT:
	case EDGE_V4_FIRST_FRAGMENT_CORRUPT:
	case EDGE_V4_LATER_FRAGMENT:
		ip->fragment_offset = rte_cpu_to_be_16(e == EDGE_V4_LATER_FRAGMENT ? 185 :
						       RTE_IPV4_HDR_MF_FLAG);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		break;
	case EDGE_V4_UDP_NO_CSUM:
	case EDGE_V6_UDP_ZERO_CSUM:
		udp->dgram_cksum = 0;
		break;
	case EDGE_V4_TAGGED:
	case EDGE_V4_TAGGED_CORRUPT:
		m->ol_flags |= RTE_MBUF_F_TX_VLAN;
		m->vlan_tci = 7;
		break;
	default:
		break;
	}
	if (e == EDGE_V4_FIRST_FRAGMENT_CORRUPT || e == EDGE_V4_TAGGED_CORRUPT)
		rte_pktmbuf_mtod(m, uint8_t *)[m->pkt_len - 1] ^= 0x5a;	/* payload */
	return m;
}

/*
 * The verdicts a NIC gives where a checksum cannot or need not be checked:
 * no L4 verdict for an IPv4 fragment (good or corrupt), for UDP sent
 * without a checksum over IPv4, or behind an IPv6 extension header the
 * device does not walk; a zero UDP checksum over IPv6 is bad; a tagged
 * frame is checked as an untagged one.
 */
static int
test_rx_checksum_edge_cases(void)
{
	static const struct { enum csum_edge e; uint64_t want; uint32_t l4_ptype; } cases[] = {
		{ EDGE_V4_FIRST_FRAGMENT, RTE_MBUF_F_RX_IP_CKSUM_GOOD, 0 },
		{ EDGE_V4_FIRST_FRAGMENT_CORRUPT, RTE_MBUF_F_RX_IP_CKSUM_GOOD, 0 },
		{ EDGE_V4_LATER_FRAGMENT, RTE_MBUF_F_RX_IP_CKSUM_GOOD, 0 },
		{ EDGE_V4_UDP_NO_CSUM, RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_PTYPE_L4_UDP },
		{ EDGE_V6_UDP_ZERO_CSUM, RTE_MBUF_F_RX_L4_CKSUM_BAD, RTE_PTYPE_L4_UDP },
		{ EDGE_V6_HOP_BY_HOP, 0, 0 },
		{ EDGE_V4_TAGGED, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD,
		  RTE_PTYPE_L4_TCP },
		{ EDGE_V4_TAGGED_CORRUPT, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_BAD,
		  RTE_PTYPE_L4_TCP },
	};
	const uint64_t mask = RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK;
	unsigned int i;

	TEST_ASSERT_SUCCESS(test_port_start_offloads(port_a, 0, RTE_ETH_TX_OFFLOAD_VLAN_INSERT, 0), "");
	TEST_ASSERT_SUCCESS(test_port_start_offloads(port_b, RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
				      RTE_ETH_RX_OFFLOAD_TCP_CKSUM |
				      RTE_ETH_RX_OFFLOAD_UDP_CKSUM, 0, 0), "");
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct rte_mbuf *rx = off_cross(csum_edge_frame(cases[i].e));
		uint64_t got;
		uint32_t l4;

		TEST_ASSERT(rx != NULL, "case %u not received", i);
		got = rx->ol_flags & mask;
		l4 = rx->packet_type & RTE_PTYPE_L4_MASK;
		rte_pktmbuf_free(rx);
		TEST_ASSERT_EQUAL(got, cases[i].want, "case %u: checksum flags 0x%" PRIx64, i, got);
		TEST_ASSERT_EQUAL(l4, cases[i].l4_ptype, "case %u: L4 packet type 0x%x", i, l4);
	}
	return TEST_SUCCESS;
}

/* B's packet type for one TCP/IPv6 frame from A; UINT32_MAX if none came. */
static uint32_t
ptype_of_cross(void)
{
	struct rte_mbuf *rx = off_cross(l4_frame(true, IPPROTO_TCP, true, 1));
	uint32_t ptype;

	if (rx == NULL)
		return UINT32_MAX;
	ptype = rx->packet_type;
	rte_pktmbuf_free(rx);
	return ptype;
}

/*
 * rte_eth_dev_set_ptypes(): the layers not asked for come as unknown, on a
 * started port and on queues set up after the call; the mask ethdev finds
 * malformed (half a layer) is refused and changes nothing.
 */
static int
test_ptype_mask(void)
{
	const uint32_t all = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6_EXT_UNKNOWN |
			     RTE_PTYPE_L4_TCP;
	uint32_t set[8];

	TEST_ASSERT_SUCCESS(test_port_start_offloads(port_a, 0, 0, 0), "");
	TEST_ASSERT_SUCCESS(test_port_start_offloads(port_b, 0, 0, 0), "");
	TEST_ASSERT_EQUAL(ptype_of_cross(), all, "default: every layer");
	TEST_ASSERT_SUCCESS(rte_eth_dev_set_ptypes(port_b, RTE_PTYPE_UNKNOWN, NULL, 0), "");
	TEST_ASSERT_EQUAL(ptype_of_cross(), RTE_PTYPE_UNKNOWN, "mask 0 on a started port");
	/* The device stopped classifying (REFNIC_CAP_RX_PTYPE off); asked
	 * again on the started port, it classifies again. */
	TEST_ASSERT_SUCCESS(rte_eth_dev_set_ptypes(port_b, RTE_PTYPE_ALL_MASK, NULL, 0), "");
	TEST_ASSERT_EQUAL(ptype_of_cross(), all, "every layer again on the started port");
	TEST_ASSERT_SUCCESS(rte_eth_dev_set_ptypes(port_b, RTE_PTYPE_UNKNOWN, NULL, 0), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_set_ptypes(port_b, RTE_PTYPE_L2_MASK | RTE_PTYPE_L3_MASK,
						   set, RTE_DIM(set)), "");
	/* Reconfigured: its RX queue set up anew keeps the port's mask. */
	TEST_ASSERT_SUCCESS(test_port_start_offloads(port_b, 0, 0, 0), "");
	TEST_ASSERT_EQUAL(ptype_of_cross(), RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6_EXT_UNKNOWN,
			  "L2 and L3 only, after queue setup");
	TEST_ASSERT_EQUAL(rte_eth_dev_set_ptypes(port_b, RTE_PTYPE_L4_TCP, NULL, 0), -EINVAL,
			  "half a layer");
	TEST_ASSERT_EQUAL(ptype_of_cross(), RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6_EXT_UNKNOWN,
			  "a refused mask changed the port's");
	TEST_ASSERT_SUCCESS(rte_eth_dev_set_ptypes(port_b, RTE_PTYPE_ALL_MASK, NULL, 0), "");
	TEST_ASSERT_EQUAL(ptype_of_cross(), all, "every layer again");
	return TEST_SUCCESS;
}

static int
test_vlan_insert_and_strip(void)
{
	struct rte_mbuf *m, *rx;
	struct rte_ether_hdr *eh;
	struct rte_vlan_hdr *vh;
	uint32_t len;

	TEST_ASSERT_SUCCESS(test_port_start_offloads(port_a, 0, RTE_ETH_TX_OFFLOAD_VLAN_INSERT, 0), "");
	TEST_ASSERT_SUCCESS(test_port_start_offloads(port_b, 0, 0, 0), "");
	m = l4_frame(false, IPPROTO_UDP, true, 1);
	len = m->pkt_len;
	m->ol_flags |= RTE_MBUF_F_TX_VLAN;
	m->vlan_tci = 100;
	rx = off_cross(m);
	TEST_ASSERT(rx != NULL, "not received");
	eh = rte_pktmbuf_mtod(rx, struct rte_ether_hdr *);
	vh = (struct rte_vlan_hdr *)(eh + 1);
	TEST_ASSERT(rx->pkt_len == len + 4 &&
		    eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN) &&
		    vh->vlan_tci == rte_cpu_to_be_16(100) &&
		    vh->eth_proto == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4), "tag not inserted");
	rte_pktmbuf_free(rx);

	TEST_ASSERT_SUCCESS(test_port_start_offloads(port_b, RTE_ETH_RX_OFFLOAD_VLAN_STRIP, 0, 0), "");
	m = l4_frame(false, IPPROTO_UDP, true, 1);
	m->ol_flags |= RTE_MBUF_F_TX_VLAN;
	m->vlan_tci = 0x2064;
	rx = off_cross(m);
	TEST_ASSERT(rx != NULL, "not received");
	eh = rte_pktmbuf_mtod(rx, struct rte_ether_hdr *);
	TEST_ASSERT(rx->pkt_len == len && (rx->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) &&
		    rx->vlan_tci == 0x2064 &&
		    eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4), "tag not stripped");
	rte_pktmbuf_free(rx);
	return TEST_SUCCESS;
}

enum vlan_seen { VLAN_LOST, VLAN_STRIPPED, VLAN_IN_FRAME, VLAN_BROKEN };

/* One frame tagged tci A -> B: how B's application sees the tag. */
static enum vlan_seen
vlan_crossing(uint16_t tci)
{
	struct rte_mbuf *m = l4_frame(false, IPPROTO_UDP, true, 1), *rx;
	const struct rte_ether_hdr *eh;
	const struct rte_vlan_hdr *vh;
	enum vlan_seen seen = VLAN_BROKEN;
	uint32_t len;

	if (m == NULL)
		return VLAN_LOST;
	len = m->pkt_len;
	m->ol_flags |= RTE_MBUF_F_TX_VLAN;
	m->vlan_tci = tci;
	rx = off_cross(m);
	if (rx == NULL)
		return VLAN_LOST;
	eh = rte_pktmbuf_mtod(rx, const struct rte_ether_hdr *);
	vh = (const struct rte_vlan_hdr *)(eh + 1);
	if (rx->pkt_len == len && (rx->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) &&
	    rx->vlan_tci == tci && eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		seen = VLAN_STRIPPED;
	else if (rx->pkt_len == len + 4 && !(rx->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) &&
		 eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN) &&
		 vh->vlan_tci == rte_cpu_to_be_16(tci))
		seen = VLAN_IN_FRAME;
	rte_pktmbuf_free(rx);
	return seen;
}

/*
 * VLAN stripping switched on a started port with rte_eth_dev_set_vlan_offload():
 * the next frame's tag is stripped into vlan_tci, and left in the frame once
 * it is switched off again; the port reports the offload as it is.
 */
static int
test_vlan_strip_switched_at_runtime(void)
{
	TEST_ASSERT_SUCCESS(test_port_start_offloads(port_a, 0, RTE_ETH_TX_OFFLOAD_VLAN_INSERT, 0), "");
	TEST_ASSERT_SUCCESS(test_port_start_offloads(port_b, 0, 0, 0), "");
	TEST_ASSERT_EQUAL(vlan_crossing(0x0101), VLAN_IN_FRAME, "before stripping is asked");
	TEST_ASSERT_SUCCESS(rte_eth_dev_set_vlan_offload(port_b, RTE_ETH_VLAN_STRIP_OFFLOAD), "");
	TEST_ASSERT_EQUAL(rte_eth_dev_get_vlan_offload(port_b) & RTE_ETH_VLAN_STRIP_OFFLOAD,
			  RTE_ETH_VLAN_STRIP_OFFLOAD, "");
	TEST_ASSERT_EQUAL(vlan_crossing(0x0102), VLAN_STRIPPED, "once switched on");
	TEST_ASSERT_SUCCESS(rte_eth_dev_set_vlan_offload(port_b, 0), "");
	TEST_ASSERT_EQUAL(rte_eth_dev_get_vlan_offload(port_b) & RTE_ETH_VLAN_STRIP_OFFLOAD, 0, "");
	TEST_ASSERT_EQUAL(vlan_crossing(0x0103), VLAN_IN_FRAME, "once switched off");
	return TEST_SUCCESS;
}

static int
test_tx_prepare_refuses(void)
{
	struct rte_mbuf *m = l4_frame(false, IPPROTO_TCP, false, 1);

	TEST_ASSERT(m != NULL, "");
	m->ol_flags |= RTE_MBUF_F_TX_SCTP_CKSUM | RTE_MBUF_F_TX_IPV4;
	TEST_ASSERT_EQUAL(rte_eth_tx_prepare(port_a, 0, &m, 1), 0, "SCTP checksum");
	TEST_ASSERT_EQUAL(rte_errno, ENOTSUP, "");
	m->ol_flags = RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_IPV4;
	m->l3_len = 10;
	TEST_ASSERT_EQUAL(rte_eth_tx_prepare(port_a, 0, &m, 1), 0, "a 10-byte IP header");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "");
	m->l3_len = sizeof(struct rte_ipv4_hdr);
	m->ol_flags = RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_IPV6;
	TEST_ASSERT_EQUAL(rte_eth_tx_prepare(port_a, 0, &m, 1), 0, "IPv4 checksum on IPv6");
	m->ol_flags = RTE_MBUF_F_TX_TCP_CKSUM;
	TEST_ASSERT_EQUAL(rte_eth_tx_prepare(port_a, 0, &m, 1), 0, "no IP version");
	m->ol_flags = RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_IPV4;
	m->l3_len = 300;
	TEST_ASSERT_EQUAL(rte_eth_tx_prepare(port_a, 0, &m, 1), 0, "headers beyond the packet");
	m->l3_len = sizeof(struct rte_ipv4_hdr);
	TEST_ASSERT_EQUAL(rte_eth_tx_prepare(port_a, 0, &m, 1), 1, "and a sound one passes");
	rte_pktmbuf_free(m);
	return TEST_SUCCESS;
}

const struct unit_test_suite refnic_offload_suite = {
	.name = "offload",
	.setup = off_setup,
	.teardown = off_teardown,
	.cases = {
		TEST_CASE(test_tx_checksum_insertion),
		TEST_CASE(test_rx_checksum_flags),
		TEST_CASE(test_rx_checksum_edge_cases),
		TEST_CASE(test_vlan_insert_and_strip),
		TEST_CASE(test_vlan_strip_switched_at_runtime),
		TEST_CASE(test_ptype_mask),
		TEST_CASE(test_tx_prepare_refuses),
		TEST_CASES_END()
	},
};
