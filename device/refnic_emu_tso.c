/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * TCP segmentation (REFNIC_CAP_TSO), as refnic_hw.h defines it: one TSO
 * packet in, ceil(payload / mss) frames out, each with the packet's headers
 * fixed up for its place in the stream. The frames are built one at a time
 * in the thread's TX scratch, so a 64 KiB packet needs no 64 KiB buffer; the
 * caller delivers each before asking for the next (refnic_emu_tx.c).
 */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "refnic_emu_offload.h"
#include "refnic_emu_parse.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_tso.h"

#define TCP_SEQ_OFF	4
#define TCP_FLAGS_OFF	13
#define TCP_CSUM_OFF	16
#define TCP_FIN		0x01
#define TCP_PSH		0x08
#define TCP_CWR		0x80

static uint32_t
get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void
put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/* Copy len bytes of f from the cursor (*s, *off) on, moving it. */
static void
frame_copy(const struct refnic_frame *f, uint16_t *s, uint16_t *off, uint8_t *dst,
	   uint32_t len)
{
	while (len > 0) {
		uint32_t n = RTE_MIN(len, (uint32_t)f->seg_len[*s] - *off);

		memcpy(dst, f->seg[*s] + *off, n);
		dst += n;
		len -= n;
		*off += n;
		if (*off == f->seg_len[*s]) {
			(*s)++;
			*off = 0;
		}
	}
}

bool
refnic_emu_tso_start(struct refnic_emu_tso *t, const struct refnic_frame *f)
{
	uint32_t l2 = f->hdr_lens & REFNIC_TXD_L2_LEN_MASK;
	uint32_t l3_len = f->hdr_lens >> REFNIC_TXD_L3_LEN_SHIFT;
	uint32_t vlan = f->offload & REFNIC_TXD_VLAN_INSERT ? 4 : 0;
	uint32_t hlen = l2 + l3_len + f->l4_len;
	const uint8_t *ip;

	if (l2 < EMU_ETH_HLEN || l3_len < 20 || f->l4_len < 20 || f->l4_len > 60 ||
	    f->mss < REFNIC_MIN_TSO_MSS || hlen > f->len ||
	    hlen + f->mss > REFNIC_MAX_FRAME_LEN)
		return false;
	t->f = f;
	t->seg = 0;
	t->seg_off = 0;
	frame_copy(f, &t->seg, &t->seg_off, t->hdr + vlan, hlen);
	if (vlan != 0) {
		memmove(t->hdr, t->hdr + 4, 12);	/* addresses first */
		put_be16(t->hdr + 12, EMU_ETH_P_VLAN);
		put_be16(t->hdr + 14, f->vlan_tci);
	}
	t->hdr_len = hlen + vlan;
	t->l3 = l2 + vlan;
	t->l4 = t->l3 + l3_len;
	ip = t->hdr + t->l3;
	switch (ip[0] >> 4) {
	case 4:
		if (ip[9] != EMU_IPPROTO_TCP)
			return false;
		t->ipv4 = true;
		t->ip_id = ip[4] << 8 | ip[5];
		break;
	case 6:
		/* Extension headers (l3_len > 40) are the driver's word. */
		if (l3_len < 40 || (l3_len == 40 && ip[6] != EMU_IPPROTO_TCP))
			return false;
		t->ipv4 = false;
		break;
	default:
		return false;
	}
	t->seq = get_be32(t->hdr + t->l4 + TCP_SEQ_OFF);
	t->tcp_flags = t->hdr[t->l4 + TCP_FLAGS_OFF];
	t->payload = f->len - hlen;
	t->off = 0;
	t->index = 0;
	t->nb_frames = t->payload == 0 ? 1 : (t->payload + f->mss - 1) / f->mss;
	return refnic_emu_tx_scratch() != NULL;
}

bool
refnic_emu_tso_next(struct refnic_emu_tso *t, struct refnic_frame *out)
{
	uint32_t n = RTE_MIN((uint32_t)t->f->mss, t->payload - t->off);
	uint32_t l3 = t->l3, l4 = t->l4, len = t->hdr_len + n;
	uint8_t *p = refnic_emu_tx_scratch();
	uint8_t flags = t->tcp_flags;
	uint16_t c;

	if (t->index == t->nb_frames)
		return false;
	memcpy(p, t->hdr, t->hdr_len);
	frame_copy(t->f, &t->seg, &t->seg_off, p + t->hdr_len, n);
	if (t->ipv4) {
		put_be16(p + l3 + 2, len - l3);
		put_be16(p + l3 + 4, (uint16_t)(t->ip_id + t->index));
		p[l3 + 10] = p[l3 + 11] = 0;
		c = (uint16_t)~rte_raw_cksum(p + l3, l4 - l3);
		memcpy(p + l3 + 10, &c, 2);
	} else {
		put_be16(p + l3 + 4, len - l3 - 40);
	}
	put_be32(p + l4 + TCP_SEQ_OFF, t->seq + t->off);
	if (t->index + 1 != t->nb_frames)
		flags &= ~(TCP_FIN | TCP_PSH);
	if (t->index != 0)
		flags &= ~TCP_CWR;
	p[l4 + TCP_FLAGS_OFF] = flags;
	p[l4 + TCP_CSUM_OFF] = p[l4 + TCP_CSUM_OFF + 1] = 0;
	c = refnic_emu_l4_csum(p, l3, l4, len, EMU_IPPROTO_TCP);
	memcpy(p + l4 + TCP_CSUM_OFF, &c, 2);

	out->nb_segs = 1;
	out->seg[0] = p;
	out->seg_len[0] = len;
	out->len = len;
	out->offload = 0;
	t->off += n;
	t->index++;
	return true;
}
