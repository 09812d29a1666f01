/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_PARSE_H_
#define _REFNIC_EMU_PARSE_H_

/* Where a frame's headers are (refnic_emu_parse.c). */

#include <stdbool.h>
#include <stdint.h>

/* Ethernet and IP, as far as the device looks into frames. */
#define EMU_ETH_HLEN		14
#define EMU_ETH_P_IPV4		0x0800
#define EMU_ETH_P_IPV6		0x86dd
#define EMU_ETH_P_VLAN		0x8100
#define EMU_IPPROTO_TCP		6
#define EMU_IPPROTO_UDP		17

struct refnic_pkt_hdrs {
	uint8_t ip_version;	/* 4 or 6; 0: not IP, the rest is unset */
	uint8_t proto;		/* IP protocol or IPv6 next header */
	bool frag;		/* an IPv4 fragment: no L4 header to trust */
	uint32_t l3;		/* offsets in the frame */
	uint32_t l4;
	uint32_t len;		/* bytes parsed: what lies beyond is unseen */
};

/* The parser itself, inline where a burst types every frame: the fields
 * the caller does not read are not written. */
static inline void
refnic_emu_parse_inline(const uint8_t *p, uint32_t len, struct refnic_pkt_hdrs *h)
{
	uint32_t l3 = EMU_ETH_HLEN;
	uint16_t ethertype;

	h->ip_version = 0;
	h->frag = false;
	h->len = len;
	if (len < EMU_ETH_HLEN)
		return;
	ethertype = p[12] << 8 | p[13];
	if (ethertype == EMU_ETH_P_VLAN && len >= EMU_ETH_HLEN + 4) {
		ethertype = p[16] << 8 | p[17];
		l3 += 4;	/* one tag looked through */
	}
	if (ethertype == EMU_ETH_P_IPV4 && len >= l3 + 20 && (p[l3] >> 4) == 4 &&
	    (p[l3] & 0x0f) >= 5 && len >= l3 + (p[l3] & 0x0f) * 4u) {
		h->ip_version = 4;
		h->l3 = l3;
		h->l4 = l3 + (p[l3] & 0x0f) * 4;
		h->proto = p[l3 + 9];
		h->frag = (p[l3 + 6] & 0x3f) != 0 || p[l3 + 7] != 0;
	} else if (ethertype == EMU_ETH_P_IPV6 && len >= l3 + 40 && (p[l3] >> 4) == 6) {
		h->ip_version = 6;
		h->l3 = l3;
		h->l4 = l3 + 40;
		h->proto = p[l3 + 6];
	}
}

void refnic_emu_parse(const uint8_t *p, uint32_t len, struct refnic_pkt_hdrs *h);

#endif /* _REFNIC_EMU_PARSE_H_ */
