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
void refnic_emu_parse(const uint8_t *p, uint32_t len, struct refnic_pkt_hdrs *h);

#endif /* _REFNIC_EMU_PARSE_H_ */
