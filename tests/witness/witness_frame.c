/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "witness_frame.h"

/* 198.18.1.1 and .2, the RFC 2544 benchmark range; spelt out: 22.11's
 * RTE_IPV4() shifts an int into its sign bit, which UBSan refuses. */
#define WITNESS_IP_SRC	(UINT32_C(198) << 24 | 18 << 16 | 1 << 8 | 1)
#define WITNESS_IP_DST	(UINT32_C(198) << 24 | 18 << 16 | 1 << 8 | 2)
#define WITNESS_SPORT_BASE	10000

static void
eth_ipv4_headers(uint8_t *p, const struct rte_ether_addr *dst, uint32_t len, uint8_t proto)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)p;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	const struct rte_ether_addr src = {{ 0x02, 0x57, 0x49, 0x54, 0x00, 0x01 }};

	rte_ether_addr_copy(dst, &eth->dst_addr);
	rte_ether_addr_copy(&src, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(RTE_MIN(len - RTE_ETHER_HDR_LEN, (uint32_t)UINT16_MAX));
	ip->time_to_live = 64;
	ip->next_proto_id = proto;
	ip->src_addr = rte_cpu_to_be_32(WITNESS_IP_SRC);
	ip->dst_addr = rte_cpu_to_be_32(WITNESS_IP_DST);
}

static void
frame_headers(uint8_t *p, const struct rte_ether_addr *dst, uint32_t len, uint16_t stream)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	eth_ipv4_headers(p, dst, len, IPPROTO_UDP);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(WITNESS_SPORT_BASE + stream);
	udp->dst_port = rte_cpu_to_be_16(WITNESS_UDP_DPORT);
	udp->dgram_len = rte_cpu_to_be_16(len - RTE_ETHER_HDR_LEN - sizeof(*ip));
	udp->dgram_cksum = 0;	/* none, as IPv4 allows */
}

/* len bytes of frame into a chain of nb_segs mbufs from pool, cut evenly. */
static struct rte_mbuf *
chain_from(struct rte_mempool *pool, const uint8_t *frame, uint32_t len, uint16_t nb_segs)
{
	struct rte_mbuf *head = NULL, *m;
	uint32_t off = 0, chunk;
	uint16_t i;

	for (i = 0; i < nb_segs; i++) {
		chunk = i + 1 < nb_segs ? len / nb_segs : len - off;
		m = rte_pktmbuf_alloc(pool);
		if (m == NULL || rte_pktmbuf_tailroom(m) < chunk) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		memcpy(rte_pktmbuf_mtod(m, void *), frame + off, chunk);
		/* Both: rte_pktmbuf_chain() adds the tail's pkt_len to the head's. */
		m->data_len = chunk;
		m->pkt_len = chunk;
		off += chunk;
		if (head == NULL)
			head = m;
		else if (rte_pktmbuf_chain(head, m) != 0) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
	}
	return head;
}

struct rte_mbuf *
witness_frame(struct rte_mempool *pool, const struct rte_ether_addr *dst, uint32_t len,
	      uint16_t nb_segs, uint16_t stream, uint64_t seq)
{
	uint8_t frame[WITNESS_FRAME_MAX];

	if (len < WITNESS_FRAME_MIN || len > WITNESS_FRAME_MAX || nb_segs == 0 ||
	    nb_segs > len)
		return NULL;
	frame_headers(frame, dst, len, stream);
	witness_stamp(frame + WITNESS_FRAME_HDRS, len - WITNESS_FRAME_HDRS, stream, seq);
	return chain_from(pool, frame, len, nb_segs);
}

struct rte_mbuf *
witness_tso_packet(struct rte_mempool *pool, const struct rte_ether_addr *dst, uint16_t mss,
		   uint16_t nb_frames, uint16_t nb_mbufs, uint16_t stream, uint64_t first_seq)
{
	uint32_t len = WITNESS_TSO_HDRS + (uint32_t)mss * nb_frames, i;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *tcp;
	struct rte_mbuf *m;
	uint8_t *pkt;

	if (mss < WITNESS_HDR_LEN || nb_frames == 0 || len > WITNESS_TSO_MAX || nb_mbufs == 0)
		return NULL;
	pkt = malloc(len);
	if (pkt == NULL)
		return NULL;
	eth_ipv4_headers(pkt, dst, len, IPPROTO_TCP);
	ip = (struct rte_ipv4_hdr *)(pkt + RTE_ETHER_HDR_LEN);
	tcp = (struct rte_tcp_hdr *)(ip + 1);
	memset(tcp, 0, sizeof(*tcp));
	tcp->src_port = rte_cpu_to_be_16(WITNESS_SPORT_BASE + stream);
	tcp->dst_port = rte_cpu_to_be_16(WITNESS_UDP_DPORT);
	/* The byte stream's offset: each frame's is its witness's. */
	tcp->sent_seq = rte_cpu_to_be_32((uint32_t)(first_seq * mss));
	tcp->data_off = sizeof(*tcp) / 4 << 4;
	tcp->tcp_flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG;
	tcp->rx_win = rte_cpu_to_be_16(65535);
	for (i = 0; i < nb_frames; i++)
		witness_stamp(pkt + WITNESS_TSO_HDRS + i * mss, mss, stream, first_seq + i);
	m = chain_from(pool, pkt, len, nb_mbufs);
	free(pkt);
	if (m == NULL)
		return NULL;
	m->ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = sizeof(*ip);
	m->l4_len = sizeof(*tcp);
	m->tso_segsz = mss;
	return m;
}

/* The witness bytes of m (copied into copy if m is a chain), or NULL if m
 * is no UDP/IPv4 or TCP/IPv4 frame long enough to hold one; their length
 * into *len. */
static const uint8_t *
witness_of(const struct rte_mbuf *m, uint8_t *copy, uint32_t *len)
{
	const struct rte_ipv4_hdr *ip;
	const uint8_t *p;
	uint32_t n = RTE_MIN(rte_pktmbuf_pkt_len(m), (uint32_t)WITNESS_FRAME_MAX), hdrs;

	/* Longer than the copy: the witness then finds the frame cut. */
	p = rte_pktmbuf_read(m, 0, n, copy);
	if (p == NULL || n < WITNESS_FRAME_MIN)
		return NULL;
	ip = (const struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);
	if (((const struct rte_ether_hdr *)p)->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ip->version_ihl != RTE_IPV4_VHL_DEF)
		return NULL;
	if (ip->next_proto_id == IPPROTO_UDP)
		hdrs = WITNESS_FRAME_HDRS;
	else if (ip->next_proto_id == IPPROTO_TCP)	/* a TSO frame, options and all */
		hdrs = RTE_ETHER_HDR_LEN + sizeof(*ip) +
		       (((const struct rte_tcp_hdr *)(ip + 1))->data_off >> 4) * 4;
	else
		return NULL;
	if (n < hdrs + WITNESS_HDR_LEN)
		return NULL;
	*len = n - hdrs;
	return p + hdrs;
}

int
witness_check_mbuf(struct witness_checker *c, uint16_t queue, const struct rte_mbuf *m)
{
	uint8_t copy[WITNESS_FRAME_MAX];
	uint32_t len = 0;
	const uint8_t *w = witness_of(m, copy, &len);

	return witness_check(c, queue, w, len);
}

int
witness_read_mbuf(const struct rte_mbuf *m, uint16_t *stream, uint64_t *seq)
{
	uint8_t copy[WITNESS_FRAME_MAX];
	uint32_t len = 0;
	const uint8_t *w = witness_of(m, copy, &len);

	return w != NULL ? witness_parse(w, len, stream, seq) : -1;
}
