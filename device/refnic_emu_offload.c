/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Offloads, done by the device as a NIC would: on TX, VLAN tag insertion
 * and IPv4 header, TCP and UDP checksums (computed whole: whatever the
 * packet holds in those fields is replaced); on RX, checksum verification
 * and VLAN tag stripping. TX offloads work on the device's own copy of the
 * frame, never on the driver's buffers.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "refnic_emu_offload.h"
#include "refnic_emu_parse.h"
#include "refnic_emu_queue.h"

#define TCP_CSUM_OFF	16
#define UDP_CSUM_OFF	6

/*
 * Each thread's scratch frames, one frame at a time: a TX frame stays in
 * its scratch until the cable has copied it out, while other engines, and
 * lcores whose doorbells run TX inline (all engine id 0), work on theirs.
 * Allocated at a thread's first offload: a plugin's static TLS has no room
 * for the frames themselves.
 */
#define SCRATCH_LEN	(REFNIC_MAX_FRAME_LEN + 4)
static __thread uint8_t *scratch_of_thread;

static inline uint8_t *
scratch(void)
{
	if (unlikely(scratch_of_thread == NULL))
		scratch_of_thread = malloc(2 * SCRATCH_LEN);
	return scratch_of_thread;
}

static inline uint8_t *
tx_scratch(void)
{
	return scratch();
}

uint8_t *
refnic_emu_tx_scratch(void)
{
	return tx_scratch();
}

static inline uint8_t *
rx_scratch(void)
{
	return scratch() + SCRATCH_LEN;
}

static void
frame_linearize(const struct refnic_frame *f, uint8_t *dst)
{
	uint16_t s;

	for (s = 0; s < f->nb_segs; s++) {
		memcpy(dst, f->seg[s], f->seg_len[s]);
		dst += f->seg_len[s];
	}
}

static uint16_t
csum_fold(uint32_t sum)
{
	sum = (sum >> 16) + (sum & 0xffff);
	sum += sum >> 16;
	return (uint16_t)~sum;
}

/*
 * Where the IP packet at l3 ends, by its own length field: frames shorter
 * than 60 bytes are padded, and the padding is not the packet's. 0 if the
 * field claims less than the headers or more than the frame holds.
 */
static uint32_t
ip_end(const uint8_t *p, uint32_t l3, uint32_t l4, uint32_t frame_len)
{
	uint32_t end;

	if ((p[l3] >> 4) == 4)
		end = l3 + (p[l3 + 2] << 8 | p[l3 + 3]);
	else
		end = l3 + 40 + (p[l3 + 4] << 8 | p[l3 + 5]);
	return end >= l4 && end <= frame_len ? end : 0;
}

/* TCP/UDP checksum over the pseudo-header and the segment [l4, end). */
uint16_t
refnic_emu_l4_csum(const uint8_t *frame, uint32_t l3, uint32_t l4, uint32_t end, uint8_t proto)
{
	uint32_t l4_len = end - l4, sum;
	uint8_t ph[40];
	uint32_t ph_len;

	if ((frame[l3] >> 4) == 4) {
		memcpy(ph, frame + l3 + 12, 8);
		ph[8] = 0;
		ph[9] = proto;
		ph[10] = l4_len >> 8;
		ph[11] = l4_len;
		ph_len = 12;
	} else {
		memcpy(ph, frame + l3 + 8, 32);
		ph[32] = l4_len >> 24;
		ph[33] = l4_len >> 16;
		ph[34] = l4_len >> 8;
		ph[35] = l4_len;
		ph[36] = ph[37] = ph[38] = 0;
		ph[39] = proto;
		ph_len = 40;
	}
	sum = rte_raw_cksum(ph, ph_len);
	sum += rte_raw_cksum(frame + l4, l4_len);
	return csum_fold(sum);
}

bool
refnic_emu_tx_offload(struct refnic_frame *f)
{
	uint32_t l2 = f->hdr_lens & REFNIC_TXD_L2_LEN_MASK;
	uint32_t l3_len = f->hdr_lens >> REFNIC_TXD_L3_LEN_SHIFT;
	uint32_t len = f->len, l3, l4;
	uint8_t *p = tx_scratch();

	if (unlikely(p == NULL))
		return false;	/* no memory for it: dropped, counted malformed */
	if (f->offload & REFNIC_TXD_VLAN_INSERT) {
		if (len < EMU_ETH_HLEN || len + 4 > SCRATCH_LEN)
			return false;
		frame_linearize(f, p + 4);
		memmove(p, p + 4, 12);			/* addresses first */
		p[12] = EMU_ETH_P_VLAN >> 8;
		p[13] = EMU_ETH_P_VLAN & 0xff;
		p[14] = f->vlan_tci >> 8;
		p[15] = f->vlan_tci;
		len += 4;
		l2 += 4;				/* headers moved with the tag */
	} else {
		frame_linearize(f, p);
	}

	l3 = l2;
	l4 = l3 + l3_len;
	if (f->offload & (REFNIC_TXD_IP_CSUM | REFNIC_TXD_L4_CSUM_TCP | REFNIC_TXD_L4_CSUM_UDP)) {
		if (l3_len < 20 || l4 > len)
			return false;
	}
	if (f->offload & REFNIC_TXD_IP_CSUM) {
		uint16_t c;

		if ((p[l3] >> 4) != 4)
			return false;
		p[l3 + 10] = p[l3 + 11] = 0;
		c = csum_fold(rte_raw_cksum(p + l3, l3_len));
		memcpy(p + l3 + 10, &c, 2);
	}
	if (f->offload & (REFNIC_TXD_L4_CSUM_TCP | REFNIC_TXD_L4_CSUM_UDP)) {
		bool tcp = f->offload & REFNIC_TXD_L4_CSUM_TCP;
		uint32_t at = l4 + (tcp ? TCP_CSUM_OFF : UDP_CSUM_OFF);
		uint32_t end = ip_end(p, l3, l4, len);
		uint16_t c;

		/* The IPv6 pseudo-header takes 32 bytes of addresses at l3 + 8. */
		if ((p[l3] >> 4) == 6 && l3_len < 40)
			return false;
		if (end == 0 || at + 2 > end)
			return false;
		p[at] = p[at + 1] = 0;
		c = refnic_emu_l4_csum(p, l3, l4, end, tcp ? EMU_IPPROTO_TCP : EMU_IPPROTO_UDP);
		if (!tcp && c == 0)
			c = 0xffff;			/* 0 means "no checksum" in UDP */
		memcpy(p + at, &c, 2);
	}
	f->nb_segs = 1;
	f->seg[0] = p;
	f->seg_len[0] = len;
	f->len = len;
	return true;
}

uint16_t
refnic_emu_rx_csum(const struct refnic_frame *f, const struct refnic_pkt_hdrs *hdrs)
{
	const uint8_t *p = f->seg[0];
	struct refnic_pkt_hdrs h = *hdrs;
	uint16_t flags = 0;
	uint32_t at, end;

	if (h.ip_version == 0)
		return 0;
	if (f->nb_segs > 1) {
		if (unlikely(scratch() == NULL))
			return 0;	/* no verdict */
		frame_linearize(f, rx_scratch());
		p = rx_scratch();
	}
	if (h.ip_version == 4)
		flags |= csum_fold(rte_raw_cksum(p + h.l3, h.l4 - h.l3)) == 0 ?
			 REFNIC_RXC_IP_CSUM_GOOD : REFNIC_RXC_IP_CSUM_BAD;
	if (h.frag || (h.proto != EMU_IPPROTO_TCP && h.proto != EMU_IPPROTO_UDP))
		return flags;
	at = h.l4 + (h.proto == EMU_IPPROTO_TCP ? TCP_CSUM_OFF : UDP_CSUM_OFF);
	end = ip_end(p, h.l3, h.l4, f->len);
	if (end == 0 || at + 2 > end)
		return flags | REFNIC_RXC_L4_CSUM_BAD;
	if (h.proto == EMU_IPPROTO_UDP && h.ip_version == 4 && p[at] == 0 && p[at + 1] == 0)
		return flags;	/* UDP over IPv4 without a checksum */
	/* Summed over the field itself, a good segment folds to zero. */
	flags |= refnic_emu_l4_csum(p, h.l3, h.l4, end, h.proto) == 0 ?
		 REFNIC_RXC_L4_CSUM_GOOD : REFNIC_RXC_L4_CSUM_BAD;
	return flags;
}

static void
frame_add(struct refnic_frame *out, const uint8_t *b, uint32_t n)
{
	out->seg[out->nb_segs] = b;
	out->seg_len[out->nb_segs++] = n;
}

bool
refnic_emu_vlan_strip(const struct refnic_frame *f, struct refnic_frame *out, uint16_t *tci)
{
	const uint32_t cut_from = 12, cut_to = 16;	/* the tag */
	uint32_t pos = 0, start, end;
	uint8_t hdr[16];
	uint16_t s;

	if (f->len < EMU_ETH_HLEN + 4)
		return false;
	if (f->seg_len[0] >= sizeof(hdr)) {
		memcpy(hdr, f->seg[0], sizeof(hdr));
	} else {
		if (unlikely(scratch() == NULL))
			return false;	/* left tagged */
		frame_linearize(f, rx_scratch());
		memcpy(hdr, rx_scratch(), sizeof(hdr));
	}
	if ((hdr[12] << 8 | hdr[13]) != EMU_ETH_P_VLAN)
		return false;
	*tci = hdr[14] << 8 | hdr[15];
	/* The same bytes without the tag: segments re-cut, nothing copied. */
	out->nb_segs = 0;
	out->len = f->len - 4;
	for (s = 0; s < f->nb_segs; s++, pos = end) {
		start = pos;
		end = pos + f->seg_len[s];
		if (start < cut_from)
			frame_add(out, f->seg[s], RTE_MIN(end, cut_from) - start);
		if (end > cut_to) {
			uint32_t from = RTE_MAX(start, cut_to);

			frame_add(out, f->seg[s] + (from - start), end - from);
		}
	}
	return true;
}
