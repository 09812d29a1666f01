/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_OFFLOAD_H_
#define _REFNIC_EMU_OFFLOAD_H_

/* Checksums and VLAN tags, TX and RX (refnic_emu_offload.c): what the
 * device does to frames on the way. */

#include <stdbool.h>
#include <stdint.h>

struct refnic_frame;
struct refnic_pkt_hdrs;

/* Apply a TX frame's offloads; f then points at the device's own copy. */
bool refnic_emu_tx_offload(struct refnic_frame *f);
/* The thread's TX scratch frame (REFNIC_MAX_FRAME_LEN + 4 bytes); NULL
 * if it could not be had. */
uint8_t *refnic_emu_tx_scratch(void);
/* TCP/UDP checksum of [l4, end) of a linear frame, with its pseudo-header. */
uint16_t refnic_emu_l4_csum(const uint8_t *frame, uint32_t l3, uint32_t l4, uint32_t end,
			    uint8_t proto);
/* REFNIC_RXC_*_CSUM_* flags for a received frame whose headers were parsed. */
uint16_t refnic_emu_rx_csum(const struct refnic_frame *f, const struct refnic_pkt_hdrs *h);
/* Strip a frame's VLAN tag into out; false if it has none. */
bool refnic_emu_vlan_strip(const struct refnic_frame *f, struct refnic_frame *out,
			   uint16_t *tci);

#endif /* _REFNIC_EMU_OFFLOAD_H_ */
