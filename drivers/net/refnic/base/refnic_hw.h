/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_HW_H_
#define _REFNIC_HW_H_

/*
 * The refnic hardware contract: everything the driver and the device agree
 * on. Both sides include this file and nothing else of each other.
 *
 * Conventions:
 *  - All multi-byte fields are little endian.
 *  - Registers are 32 bits wide and live in BAR0 (REFNIC_BAR0_SIZE bytes).
 *  - Rings have a power-of-two number of entries. Ring indexes in registers
 *    and completions are entry indexes in [0, size).
 *  - Completion and event entries carry a phase bit in their last byte. The
 *    producer writes the rest of the entry first and the phase byte last;
 *    the consumer checks the phase, issues a read barrier, then reads the
 *    rest. The expected phase starts at 1 and flips on every ring wrap.
 *  - Everything the device writes is untrusted by the driver: indexes,
 *    lengths, ids and phase bits are checked before use.
 *
 * This file is the normative contract. doc/guides/nics/refnic_hw.rst is its
 * theory of operation (ordering, state machines, what the device does with
 * what it is given); it does not repeat what is defined here, and where the
 * two disagree, this file wins.
 */

#include <stdint.h>

#define REFNIC_HW_MAGIC			0x434e4652u /* "RFNC" */
#define REFNIC_HW_VERSION_MAJOR		1
#define REFNIC_HW_VERSION_MINOR		7	/* 1.1: REFNIC_Q_RERING; 1.2: the push
						 * line format, REFNIC_REG_PUSH_INFO,
						 * REFNIC_ADMIN_PUSH_CHECK; 1.3:
						 * REFNIC_CAP_RX_PTYPE, flows; 1.4:
						 * REFNIC_CAP_TSO, the device clock,
						 * RX stamps, IEEE 1588; 1.5:
						 * REFNIC_CAP_ADMIN_DUE; 1.6:
						 * REFNIC_CAP_RX_WB; 1.7: the
						 * network cable counters of
						 * refnic_hw_stats */
#define REFNIC_HW_VERSION(maj, min)	(((uint32_t)(maj) << 16) | (min))

/* ---------------------------------------------------------------------------
 * Limits
 */
#define REFNIC_MAX_QUEUES		64	/* queue pairs per port */
#define REFNIC_MAX_VECTORS		(REFNIC_MAX_QUEUES + 1)
#define REFNIC_ADMIN_VECTOR		0	/* admin + async events */
#define REFNIC_QUEUE_VECTOR(q)		(1 + (q))
#define REFNIC_MIN_RING_SIZE		64
#define REFNIC_MAX_RING_SIZE		4096
#define REFNIC_MAX_TX_SEGS		32	/* descriptors per TX packet */
#define REFNIC_MAX_TSO_SEGS		64	/* (1.4) data descriptors per TSO packet */
#define REFNIC_MAX_TSO_SIZE		65536	/* (1.4) bytes in a TSO packet, headers
						 * included */
#define REFNIC_MIN_TSO_MSS		64	/* (1.4) smallest segment payload */
#define REFNIC_MIN_MTU			68
#define REFNIC_MAX_MTU			9000
#define REFNIC_ETH_OVERHEAD		(14 + 4 + 4) /* header, one VLAN, FCS */
#define REFNIC_MAX_FRAME_LEN		(REFNIC_MAX_MTU + REFNIC_ETH_OVERHEAD)
#define REFNIC_MIN_RX_BUF_SIZE		256
#define REFNIC_RSS_KEY_SIZE		40
#define REFNIC_RSS_RETA_SIZE		128
#define REFNIC_MAX_MAC_FILTERS		32	/* unicast, besides the primary */
#define REFNIC_MAX_MC_FILTERS		64	/* REFNIC_ADMIN_MC_LIST_SET */
#define REFNIC_MAX_VLAN_ID		4095
#define REFNIC_MIN_AEQ_DEPTH		16
#define REFNIC_MAX_AEQ_DEPTH		1024
#define REFNIC_FW_VERSION_LEN		32
#define REFNIC_MAX_FLOWS		4096	/* flow table entries (1.3) */
#define REFNIC_FLOW_RETA_SIZE		64	/* a flow rule's RSS table (1.3) */

/* ---------------------------------------------------------------------------
 * BAR0 register map
 */
#define REFNIC_BAR0_SIZE		0x10000u

/* Identification and global state (read-only unless noted). */
#define REFNIC_REG_MAGIC		0x0000	/* REFNIC_HW_MAGIC */
#define REFNIC_REG_VERSION		0x0004	/* REFNIC_HW_VERSION() */
#define REFNIC_REG_CAPS_LO		0x0008	/* REFNIC_CAP_* bits 0..31 */
#define REFNIC_REG_CAPS_HI		0x000c	/* REFNIC_CAP_* bits 32..63 */
#define REFNIC_REG_STATUS		0x0010	/* REFNIC_STATUS_* */
#define REFNIC_REG_RESET		0x0014	/* W: REFNIC_RESET_REQUEST */
#define REFNIC_REG_ADMIN_TIMEOUT_US	0x0018	/* hard admin timeout */
#define REFNIC_REG_RESET_TIMEOUT_US	0x001c	/* max time to leave reset */
#define REFNIC_REG_ERRATA		0x0020	/* REFNIC_ERRATA_* */
#define REFNIC_REG_FATAL_CODE		0x0024	/* REFNIC_FATAL_* once FATAL */
#define REFNIC_REG_RESET_GEN		0x0028	/* resets completed (wraps): a
						 * READY seen before it moves is
						 * the state from before the reset */
#define REFNIC_REG_PUSH_INFO		0x002c	/* REFNIC_PUSH_INFO_*: emulated
						 * platforms only, 0 on hardware */

/*
 * (1.4) The device clock and the IEEE 1588 latches (REFNIC_CAP_RX_TSTAMP,
 * REFNIC_CAP_PTP). The clock counts nanoseconds, free-running from power-on;
 * REFNIC_ADMIN_CLOCK_SET and _ADJUST move it. A store to CLOCK_LATCH copies
 * the clock into CLOCK_LO/HI, which then hold still until the next store:
 * store, then read LO and HI (a PCIe read does not pass the posted store).
 * Callers of one function share the pair: the driver serialises them.
 *
 * With timesync on (REFNIC_ADMIN_TIMESYNC_CTRL), the device takes the time
 * a PTP event message (below) left or arrived into the TX or RX latch: the
 * stamp, then REFNIC_PTP_LATCH_VALID in the latch's STATUS. A latch that
 * holds a stamp takes no other until the driver releases it (any store to
 * its STATUS), as Intel's TSYNCRXCTL/TSYNCTXCTL latches do, so the stamp of
 * a Sync is not overwritten by the next message before software reads it.
 * TX latches what descriptors ask for (REFNIC_TXD_TSTAMP); RX, every event
 * message: EtherType 0x88F7, or UDP to port 319, whose PTP messageType (the
 * low nibble of the first PTP byte) is below 8 (Sync, Delay_Req,
 * Pdelay_Req, Pdelay_Resp).
 */
#define REFNIC_REG_CLOCK_LATCH		0x0100	/* W: copy the clock to LO/HI */
#define REFNIC_REG_CLOCK_LO		0x0104	/* ns, bits 31:0 */
#define REFNIC_REG_CLOCK_HI		0x0108	/* ns, bits 63:32 */
#define REFNIC_REG_PTP_TX_LO		0x0110
#define REFNIC_REG_PTP_TX_HI		0x0114
#define REFNIC_REG_PTP_TX_STATUS	0x0118	/* REFNIC_PTP_LATCH_*; W: release */
#define REFNIC_REG_PTP_RX_LO		0x0120
#define REFNIC_REG_PTP_RX_HI		0x0124
#define REFNIC_REG_PTP_RX_STATUS	0x0128	/* REFNIC_PTP_LATCH_*; W: release */
#define REFNIC_REG_CLOCK_BASE		0x0100	/* the block: 0x0100 .. 0x013f */
#define REFNIC_REG_CLOCK_END		0x0140

#define REFNIC_PTP_LATCH_VALID		0x1u	/* a stamp, not read yet */
#define REFNIC_PTP_ETHERTYPE		0x88f7
#define REFNIC_PTP_UDP_EVENT_PORT	319

/* Admin submission queue: 64-byte commands, driver produces. */
#define REFNIC_REG_AQ_BASE_LO		0x0040
#define REFNIC_REG_AQ_BASE_HI		0x0044
#define REFNIC_REG_AQ_DEPTH		0x0048	/* entries, power of two */
#define REFNIC_REG_AQ_TAIL		0x004c	/* doorbell */
#define REFNIC_REG_AQ_HEAD		0x0050	/* device: next to fetch */
#define REFNIC_REG_AQ_DUE_US		0x0054	/* (1.5) device, REFNIC_CAP_ADMIN_DUE:
						 * the latency of the command it
						 * fetched last, from that fetch */

/* Admin completion queue: 16-byte completions, device produces. */
#define REFNIC_REG_ACQ_BASE_LO		0x0060
#define REFNIC_REG_ACQ_BASE_HI		0x0064
#define REFNIC_REG_ACQ_DEPTH		0x0068	/* == AQ depth */

/* Async event queue: 16-byte events, device produces. */
#define REFNIC_REG_AEQ_BASE_LO		0x0080
#define REFNIC_REG_AEQ_BASE_HI		0x0084
#define REFNIC_REG_AEQ_DEPTH		0x0088
#define REFNIC_REG_AEQ_HEAD		0x008c	/* driver: next to consume */
#define REFNIC_REG_AEQ_CTRL		0x0090	/* REFNIC_AEQ_CTRL_* */

/*
 * Interrupt vectors. Vector 0 serves the admin queue and async events,
 * vector 1 + q serves queue pair q. Each vector has a block of registers.
 *
 * A queue's interrupt is one-shot: the driver arms it by writing
 * REFNIC_Q_CQ_HEAD with REFNIC_Q_CQ_ARM; the device raises the vector once
 * a completion lies beyond that index (at once if one does already), and
 * the raise disarms every cause of the vector. The intervals hold a raise
 * back until that long after the vector's previous one (moderation, with
 * REFNIC_CAP_INTR_MODERATION): what arrives meanwhile shares the interrupt.
 *
 * (1.3) A held raise never waits while its queue's ring fills, as a NIC's
 * descriptor minimum threshold interrupt does not: a cause whose interval
 * has not expired raises the vector at once when its ring is half taken,
 * i.e. when an RX queue has REFNIC_ITR_RING_FILL(size) or fewer posted
 * buffers left unused, or when a TX queue has completed
 * size - REFNIC_ITR_RING_FILL(size) or more descriptors since the cause was
 * armed. Frames an RX queue drops for want of a buffer while its cause is
 * held are counted (refnic_hw_queue_stats.rx_missed_while_held).
 */
#define REFNIC_REG_VEC_BASE		0x0400
#define REFNIC_REG_VEC_STRIDE		0x10
#define REFNIC_REG_VEC(v)		(REFNIC_REG_VEC_BASE + (v) * REFNIC_REG_VEC_STRIDE)
#define REFNIC_VEC_RX_ITR_US		0x0	/* RX cause: interval, 0 = none */
#define REFNIC_VEC_CTRL			0x4	/* REFNIC_VEC_CTRL_* */
#define REFNIC_VEC_RAISED		0x8	/* device: interrupts raised */
#define REFNIC_VEC_TX_ITR_US		0xc	/* TX cause: interval, 0 = none */
#define REFNIC_ITR_MAX_US		10000	/* larger intervals read as this */
#define REFNIC_ITR_RING_FILL(size)	((size) / 2) /* (1.3) early raise, above */

/*
 * Queue register blocks. TX queue q and RX queue q have one block each.
 * The ring base and size are set by REFNIC_ADMIN_QUEUE_CREATE and mirrored
 * here for inspection (register dumps); the driver writes TAIL, and
 * CQ_HEAD when it uses interrupts.
 */
#define REFNIC_REG_TXQ_BASE		0x1000
#define REFNIC_REG_RXQ_BASE		0x2000
#define REFNIC_REG_Q_STRIDE		0x40
#define REFNIC_REG_TXQ(q)		(REFNIC_REG_TXQ_BASE + (q) * REFNIC_REG_Q_STRIDE)
#define REFNIC_REG_RXQ(q)		(REFNIC_REG_RXQ_BASE + (q) * REFNIC_REG_Q_STRIDE)
#define REFNIC_Q_TAIL			0x00	/* doorbell: producer index */
#define REFNIC_Q_HEAD			0x04	/* device: consumer index */
#define REFNIC_Q_RING_BASE_LO		0x08
#define REFNIC_Q_RING_BASE_HI		0x0c
#define REFNIC_Q_RING_SIZE		0x10
#define REFNIC_Q_CQ_HEAD		0x14	/* driver: next completion it will
						 * read, written to arm or disarm
						 * the queue's interrupt */
#define REFNIC_Q_STATUS			0x18	/* REFNIC_Q_STATUS_* */
#define REFNIC_Q_VECTOR			0x1c
#define REFNIC_Q_RERING			0x20	/* W (1.1): the device takes TAIL
						 * again, as if just written; for
						 * missed-doorbell recovery. The
						 * TAIL register keeps the last
						 * value stored, so a re-ring needs
						 * no value and never races a TAIL
						 * write with a stale one. */

/* REFNIC_Q_CQ_HEAD: the index in bits 15:0; ARM arms, a write without disarms. */
#define REFNIC_Q_CQ_INDEX_MASK		0xffffu
#define REFNIC_Q_CQ_ARM			0x80000000u

/*
 * Write-combining push window (REFNIC_CAP_TX_PUSH): one 256-byte line per
 * TX queue. Instead of ringing TAIL, a driver may copy a one-packet burst
 * into its queue's line: a struct refnic_push_hdr, the packet's descriptors
 * (written to the ring as well: the ring stays the reference), then the
 * packet's first inline_len bytes. The line is the doorbell (hdr.tail is
 * the new TAIL): the device sends the packet without fetching its
 * descriptors, and without a DMA read of the bytes carried inline.
 *
 * Store the line in order with 64-bit stores from its start, then a store
 * fence, and never read it back. Mapped write-combining, the stores reach
 * the device as bursts of REFNIC_PUSH_BURST bytes; mapped uncached (what the
 * OS silently gives when WC is unavailable) or trapped, as one transaction
 * per 8-byte store, which costs more than the fetch it saves (netdev,
 * 2014-10-01, "Add pgtable API to query if write combining is available").
 * A line the device cannot use (bad header) counts as a TAIL doorbell.
 * On an emulated BAR the write trap is called once per line, after the
 * fence, with the number of bytes stored (see refnic_bar.h).
 */
#define REFNIC_PUSH_BASE		0x8000
#define REFNIC_PUSH_STRIDE		0x100
#define REFNIC_PUSH_LINE(q)		(REFNIC_PUSH_BASE + (q) * REFNIC_PUSH_STRIDE)
#define REFNIC_PUSH_LINE_SIZE		REFNIC_PUSH_STRIDE
#define REFNIC_PUSH_END			REFNIC_PUSH_LINE(REFNIC_MAX_QUEUES)
#define REFNIC_PUSH_BURST		64	/* bytes a WC mapping sends at once */
#define REFNIC_PUSH_MAX_DESC		8	/* descriptors in one line */

#define REFNIC_BAR0_REGS_END		0xc000

/* REFNIC_REG_STATUS */
#define REFNIC_STATUS_STATE_MASK	0x000fu
#define REFNIC_STATUS_LINK_UP		0x0100u
#define REFNIC_STATUS_FATAL		0x0200u

/* Reset state machine, REFNIC_REG_STATUS & REFNIC_STATUS_STATE_MASK. */
enum refnic_hw_state {
	REFNIC_STATE_OFF = 0,		/* powered, never reset */
	REFNIC_STATE_RESETTING = 1,	/* reset in progress */
	REFNIC_STATE_READY = 2,		/* admin queue may be configured */
	REFNIC_STATE_FATAL = 3,		/* needs a reset */
};

static inline const char *
refnic_hw_state_name(unsigned int state)
{
	static const char * const names[] = {
		[REFNIC_STATE_OFF] = "off",
		[REFNIC_STATE_RESETTING] = "resetting",
		[REFNIC_STATE_READY] = "ready",
		[REFNIC_STATE_FATAL] = "fatal",
	};

	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "unknown";
}

/* Writing this to REFNIC_REG_RESET resets the function: queues are torn
 * down, the admin queue is forgotten, filters return to defaults. */
#define REFNIC_RESET_REQUEST		0x52535421u /* "!TSR" */

/* REFNIC_REG_FATAL_CODE */
#define REFNIC_FATAL_NONE		0
#define REFNIC_FATAL_DMA		1	/* bad IOVA from the driver */
#define REFNIC_FATAL_QUEUE		2	/* malformed ring state */
#define REFNIC_FATAL_INJECTED		3	/* fault injection */

/*
 * REFNIC_REG_PUSH_INFO: how the platform maps the push window. Only an
 * emulated BAR's platform (the device model) can know and say it; a driver
 * on a real BAR asks the OS (sysfs resource<N>_wc, PAT) instead.
 */
#define REFNIC_PUSH_INFO_WC		0x1u	/* mapped write-combining */

/* REFNIC_REG_AEQ_CTRL */
#define REFNIC_AEQ_CTRL_ENABLE		0x1u

/* REFNIC_VEC_CTRL */
#define REFNIC_VEC_CTRL_MASKED		0x1u

/* REFNIC_Q_STATUS */
#define REFNIC_Q_STATUS_ENABLED		0x1u
#define REFNIC_Q_STATUS_ERROR		0x2u

/* Capabilities (REFNIC_REG_CAPS_LO/HI, also in the identify data). */
#define REFNIC_CAP_RSS			(1ull << 0)
#define REFNIC_CAP_RX_CSUM		(1ull << 1)
#define REFNIC_CAP_TX_CSUM		(1ull << 2)
#define REFNIC_CAP_VLAN_STRIP		(1ull << 3)
#define REFNIC_CAP_VLAN_INSERT		(1ull << 4)
#define REFNIC_CAP_VLAN_FILTER		(1ull << 5)
#define REFNIC_CAP_SCATTER		(1ull << 6)
#define REFNIC_CAP_JUMBO		(1ull << 7)
#define REFNIC_CAP_AEQ			(1ull << 8)	/* async events */
#define REFNIC_CAP_INTR_MODERATION	(1ull << 9)	/* REFNIC_VEC_*_ITR_US */
/* bit 10 is reserved: adaptive moderation is the driver's (refnic_moderation.c) */
#define REFNIC_CAP_TX_PUSH		(1ull << 11)	/* push window */
#define REFNIC_CAP_FAULT_REPORT		(1ull << 12)	/* fatal codes + events */
#define REFNIC_CAP_STATS_DMA		(1ull << 13)	/* ADMIN_STATS_GET */
#define REFNIC_CAP_FLOW			(1ull << 14)	/* flow table, ADMIN_FLOW_* (1.3) */
#define REFNIC_CAP_RX_PTYPE		(1ull << 16)	/* (1.3) packet types in RX
							 * completions; switchable: off,
							 * the device may skip parsing */
#define REFNIC_CAP_TSO			(1ull << 17)	/* (1.4) TCP segmentation:
							 * REFNIC_TXD_TSO, refnic_tx_ctx_desc */
#define REFNIC_CAP_RX_TSTAMP		(1ull << 19)	/* (1.4) the device clock, RX
							 * stamps (REFNIC_QCREATE_RX_TSTAMP) */
#define REFNIC_CAP_PTP			(1ull << 20)	/* (1.4) adjustable clock,
							 * IEEE 1588 latches */
#define REFNIC_CAP_ADMIN_DUE		(1ull << 21)	/* (1.5) a command is fetched in
							 * the AQ_TAIL store, its latency
							 * counted from there and stated in
							 * REFNIC_REG_AQ_DUE_US */
#define REFNIC_CAP_RX_WB		(1ull << 22)	/* (1.6) RX completions written
							 * back into the descriptors
							 * (REFNIC_QCREATE_RX_WB) */

/*
 * Features the driver turns on with REFNIC_ADMIN_SET_FEATURES (value: the
 * REFNIC_CAP_* bits 0..31 to enable; others are left off). GET_FEATURES
 * returns the enabled set. Only these capabilities are switchable.
 */
#define REFNIC_FEATURES_SWITCHABLE	(REFNIC_CAP_VLAN_FILTER | REFNIC_CAP_VLAN_STRIP | \
					 REFNIC_CAP_RX_CSUM | REFNIC_CAP_RX_PTYPE)

/* Errata (REFNIC_REG_ERRATA): behaviours the driver must work around. */
/*
 * The device may miss a TAIL write (TX, RX or AQ_TAIL): the value lands in
 * the register but the device goes on working from the tail it took before,
 * until TAIL is written again or REFNIC_Q_RERING is. Work posted by the
 * missed write waits: a TX burst is not sent, RX buffers are not used.
 */
#define REFNIC_ERRATA_MISSED_DOORBELL	(1u << 0)

/* ---------------------------------------------------------------------------
 * Data path descriptors
 */

/* TX descriptor: one per segment, REFNIC_TXD_EOP on a packet's last. */
struct refnic_tx_desc {
	uint64_t addr;		/* IOVA of the segment */
	uint16_t len;		/* segment length */
	uint16_t flags;		/* REFNIC_TXD_* */
	uint16_t vlan_tci;	/* with REFNIC_TXD_VLAN_INSERT */
	uint16_t hdr_lens;	/* l2_len | l3_len << 7, for offloads */
};

#define REFNIC_TXD_EOP			0x0001u
#define REFNIC_TXD_IP_CSUM		0x0002u
#define REFNIC_TXD_L4_CSUM_TCP		0x0004u
#define REFNIC_TXD_L4_CSUM_UDP		0x0008u
#define REFNIC_TXD_VLAN_INSERT		0x0010u
#define REFNIC_TXD_TSO			0x0020u	/* (1.4) segment the packet */
#define REFNIC_TXD_CTX			0x0040u	/* (1.4) a refnic_tx_ctx_desc */
#define REFNIC_TXD_TSTAMP		0x0080u	/* (1.4) first descriptor: latch the
						 * time the packet leaves in
						 * REFNIC_REG_PTP_TX_* (timesync on) */
#define REFNIC_TXD_L2_LEN_MASK		0x007fu
#define REFNIC_TXD_L3_LEN_SHIFT		7

/*
 * (1.4) TCP segmentation (REFNIC_CAP_TSO). A TSO packet takes one context
 * descriptor, then its data descriptors: the context (REFNIC_TXD_CTX, its
 * flags where a data descriptor has them) says how to cut, the first data
 * descriptor carries REFNIC_TXD_TSO with hdr_lens (and VLAN_INSERT if asked).
 * The headers (l2 + l3 + l4_len bytes) may span descriptors. The device sends
 * ceil(payload / mss) frames (one if there is no payload), each with a copy
 * of the headers and the next mss bytes of payload, in order, and sets in
 * each: the IPv4 total length, id (the packet's id + the segment's index)
 * and header checksum, or the IPv6 payload length; the TCP sequence number
 * (the packet's + the payload offset), FIN and PSH as the packet has them on
 * the last frame only, CWR as the packet has it on the first only; the TCP
 * checksum (the packet's checksum field is ignored). Its other fields go out
 * as they are. The other REFNIC_TXD_*_CSUM flags are ignored with TSO.
 *
 * A TSO packet holds at most refnic_identify.max_tso_segs data descriptors
 * (the context is not counted) and max_tso_size bytes; its mss is at least
 * REFNIC_MIN_TSO_MSS and each frame (headers + mss) at most
 * REFNIC_MAX_FRAME_LEN; l4_len is 20..60; the IP header is IPv4 or IPv6 by
 * its version, carrying TCP. A TSO packet that breaks these, a context not
 * followed by a TSO descriptor, a TSO descriptor without its context, or any
 * of them on a device whose TSO is off, is dropped whole and counted in
 * tx_malformed. A TSO packet is never pushed (REFNIC_PUSH_LINE).
 */
struct refnic_tx_ctx_desc {
	uint16_t mss;		/* payload bytes per frame */
	uint8_t l4_len;		/* TCP header, options included */
	uint8_t rsvd0;
	uint32_t rsvd1;
	uint16_t rsvd2;		/* 0: where refnic_tx_desc.len is */
	uint16_t flags;		/* REFNIC_TXD_CTX, nothing else */
	uint32_t rsvd3;
};

/* TX completion: all descriptors before sq_head have been sent. */
struct refnic_tx_cpl {
	uint16_t sq_head;	/* next descriptor the device will fetch */
	uint16_t status;	/* REFNIC_TXC_STS_* */
	uint8_t rsvd[3];
	uint8_t phase;		/* REFNIC_PHASE_BIT */
};

#define REFNIC_TXC_STS_OK		0
#define REFNIC_TXC_STS_MALFORMED	1	/* bad descriptor chain, dropped */

/* RX descriptor: one buffer posted by the driver. */
struct refnic_rx_desc {
	uint64_t addr;		/* IOVA of the buffer */
	uint16_t buf_len;	/* usable bytes at addr */
	uint16_t rsvd[3];	/* 0: with REFNIC_QCREATE_RX_WB, the last byte
				 * is where the completion's phase goes */
};

/*
 * RX completion: one per used buffer, in descriptor order. Two formats, a
 * queue's choice at QUEUE_CREATE:
 *  - a completion ring (the default): entry i at cq_iova completes
 *    descriptor i; its phase bit is the lap's (starts at 1, flips on every
 *    wrap), as in every other ring here;
 *  - (1.6) written back (REFNIC_QCREATE_RX_WB, with REFNIC_CAP_RX_WB): the
 *    device writes the completion over descriptor i itself, in the same
 *    layout, after it has read the descriptor and the buffer is filled, and
 *    its phase byte (the descriptor's last) last, always 1: a done bit, as
 *    i40e's DD. The driver posts every descriptor with that byte 0 (all of
 *    rsvd), so a slot is done when the byte reads 1; a slot that was
 *    completed and not posted again still reads 1, so the driver reads no
 *    slot at or past its tail. The queue touches one ring instead of two.
 */
struct refnic_rx_cpl {
	uint32_t rss_hash;	/* with REFNIC_RXC_RSS_VALID */
	uint16_t desc_idx;	/* the descriptor this buffer came from */
	uint16_t len;		/* bytes written to this buffer */
	uint16_t flags;		/* REFNIC_RXC_* */
	uint16_t vlan_tci;	/* with REFNIC_RXC_VLAN_STRIPPED */
	uint8_t ptype;		/* REFNIC_PTYPE_* */
	uint8_t rsvd[2];
	uint8_t phase;		/* REFNIC_PHASE_BIT */
};

#define REFNIC_RXC_EOP			0x0001u	/* last buffer of the frame */
#define REFNIC_RXC_RSS_VALID		0x0002u
#define REFNIC_RXC_IP_CSUM_GOOD		0x0004u
#define REFNIC_RXC_IP_CSUM_BAD		0x0008u
#define REFNIC_RXC_L4_CSUM_GOOD		0x0010u
#define REFNIC_RXC_L4_CSUM_BAD		0x0020u
#define REFNIC_RXC_VLAN_STRIPPED	0x0040u
/*
 * (1.3) A flow rule with REFNIC_FLOW_ACT_MARK matched the frame: rss_hash
 * holds the rule's mark, not a hash (REFNIC_RXC_RSS_VALID is then clear), as
 * Intel's flow director reports its filter id in place of the RSS hash. A
 * marked frame has no hash; the completion has no room for both.
 */
#define REFNIC_RXC_FLOW_MARK		0x0080u
/* (1.4) The queue's stamp slot for this completion holds the frame's
 * arrival time (REFNIC_QCREATE_RX_TSTAMP), on the frame's last completion. */
#define REFNIC_RXC_TSTAMP		0x0100u
/* (1.4) Timesync on: a PTP frame (EtherType 0x88F7, or UDP to port 319 or
 * 320); if an event message, its arrival time went to the RX latch if that
 * was free. On the frame's last completion. */
#define REFNIC_RXC_PTP			0x0200u

/* Packet types reported in refnic_rx_cpl.ptype; REFNIC_PTYPE_L2 for every
 * frame while REFNIC_CAP_RX_PTYPE is not enabled (1.3). */
#define REFNIC_PTYPE_L2			0x00
#define REFNIC_PTYPE_IPV4		0x01
#define REFNIC_PTYPE_IPV6		0x02
#define REFNIC_PTYPE_L3_MASK		0x0f
#define REFNIC_PTYPE_TCP		0x10
#define REFNIC_PTYPE_UDP		0x20
#define REFNIC_PTYPE_L4_MASK		0xf0

#define REFNIC_PHASE_BIT		0x01u

/* The head of a push line (REFNIC_PUSH_LINE), followed by nb_desc
 * refnic_tx_desc and inline_len bytes of the packet, padded to 8 bytes. */
struct refnic_push_hdr {
	uint16_t tail;		/* the queue's TAIL after this packet */
	uint8_t nb_desc;	/* 1 .. REFNIC_PUSH_MAX_DESC */
	uint8_t rsvd0;
	uint16_t inline_len;	/* packet bytes carried in the line */
	uint16_t rsvd1;
};

/* Packet bytes a line has room for after n descriptors. */
#define REFNIC_PUSH_INLINE_ROOM(n) \
	(REFNIC_PUSH_LINE_SIZE - sizeof(struct refnic_push_hdr) - \
	 (n) * sizeof(struct refnic_tx_desc))

/* ---------------------------------------------------------------------------
 * Admin queue
 */
/*
 * The admin command set, once: X(NAME, value, what it does). The opcode enum
 * and the names both sides print and parse are generated from it.
 */
#define REFNIC_ADMIN_OPCODES(X)						\
	X(NOP, 0, "does nothing; completes")				\
	X(IDENTIFY, 1, "DMA refnic_identify to buf")			\
	X(GET_FEATURES, 2, "result: enabled REFNIC_CAP_* bits 0..31")	\
	X(SET_FEATURES, 3, "value: REFNIC_FEATURES_SWITCHABLE bits to enable") \
	X(SET_MAC, 4, "mac: primary unicast address")			\
	X(SET_MTU, 5, "value: MTU")					\
	X(SET_RX_MODE, 6, "value: REFNIC_RX_MODE_*")			\
	X(MAC_FILTER_ADD, 7, "mac: extra unicast address")		\
	X(MAC_FILTER_DEL, 8, "mac: extra unicast address")		\
	X(VLAN_FILTER_ADD, 9, "vlan_id: accepted with VLAN filtering on") \
	X(VLAN_FILTER_DEL, 10, "vlan_id")				\
	X(RSS_SET, 11, "DMA refnic_rss_config from buf")		\
	X(RSS_GET, 12, "DMA refnic_rss_config to buf")			\
	X(QUEUE_CREATE, 13, "qcreate")					\
	X(QUEUE_DESTROY, 14, "qdestroy")				\
	X(SET_MODERATION, 15, "reserved: see REFNIC_VEC_*_ITR_US")				\
	X(STATS_GET, 16, "DMA refnic_hw_stats to buf")			\
	X(STATS_CLEAR, 17, "zero the device counters")			\
	X(FW_VERSION, 18, "DMA the version string (NUL-terminated) to buf") \
	X(LINK_GET, 19, "result: REFNIC_LINK_*")			\
	X(MC_LIST_SET, 20, "DMA 6-byte addresses from buf, at most REFNIC_MAX_MC_FILTERS") \
	X(LINK_SET, 21, "value: REFNIC_LINK_UP turns the port's PHY on, 0 off (1.1)") \
	X(PUSH_CHECK, 22, "value: qid whose line holds the push test pattern; " \
	  "result: REFNIC_PUSH_CHECK_*")					\
	X(FLOW_ADD, 23, "flow: DMA refnic_flow_rule from buf into slot id (1.3)") \
	X(FLOW_DEL, 24, "flow: empty slot id (1.3)")			\
	X(FLOW_QUERY, 25, "flow: DMA slot id's refnic_flow_counters to buf (1.3)") \
	X(FLOW_FLUSH, 26, "empty every slot of the flow table (1.3)")	\
	X(CLOCK_SET, 27, "clock: ns, the device clock's new value (1.4)") \
	X(CLOCK_ADJUST, 28, "clock: ns, signed, added to the device clock (1.4)") \
	X(TIMESYNC_CTRL, 29, "value: REFNIC_TIMESYNC_ON latches PTP stamps, 0 stops (1.4)")

#define REFNIC_ADMIN_OPCODE_ENUM(name, value, what) REFNIC_ADMIN_ ## name = value,
enum refnic_admin_opcode {
	REFNIC_ADMIN_OPCODES(REFNIC_ADMIN_OPCODE_ENUM)
	REFNIC_ADMIN_OPCODE_MAX
};

#define REFNIC_ADMIN_OPCODE_NAME(name, value, what) [value] = #name,
static inline const char *
refnic_admin_opcode_name(unsigned int opcode)
{
	static const char * const names[REFNIC_ADMIN_OPCODE_MAX] = {
		REFNIC_ADMIN_OPCODES(REFNIC_ADMIN_OPCODE_NAME)
	};

	return opcode < REFNIC_ADMIN_OPCODE_MAX ? names[opcode] : "UNKNOWN";
}

/* Command status, refnic_admin_cpl.status. */
enum refnic_admin_status {
	REFNIC_ADMIN_STS_OK = 0,
	REFNIC_ADMIN_STS_UNSUPPORTED = 1,
	REFNIC_ADMIN_STS_INVALID = 2,
	REFNIC_ADMIN_STS_NOSPC = 3,
	REFNIC_ADMIN_STS_NOT_FOUND = 4,
	REFNIC_ADMIN_STS_BUSY = 5,
	REFNIC_ADMIN_STS_DMA_ERROR = 6,
	REFNIC_ADMIN_STS_INTERNAL = 7,
};

enum refnic_queue_type {
	REFNIC_QTYPE_TX = 0,
	REFNIC_QTYPE_RX = 1,
};

struct refnic_admin_buf {
	uint64_t iova;
	uint32_t len;
	uint32_t rsvd;
};

struct refnic_admin_queue_create {
	uint8_t type;		/* refnic_queue_type */
	uint8_t rsvd;
	uint16_t qid;
	uint16_t ring_size;
	uint16_t vector;
	uint64_t ring_iova;	/* descriptors */
	uint64_t cq_iova;	/* completions, ring_size entries */
	uint16_t rx_buf_size;	/* RX: minimum posted buffer size */
	uint16_t flags;		/* REFNIC_QCREATE_* */
	uint32_t rsvd1;
};

#define REFNIC_QCREATE_INTR		0x0001u	/* raise the queue's vector */
/*
 * (1.4) RX, with REFNIC_CAP_RX_TSTAMP: the completion area holds ring_size
 * completions, then ring_size stamps (uint64_t, device clock ns): stamp i
 * goes with completion i and is written before its phase byte. The
 * completions keep their 16 bytes, so a queue without stamps is unchanged
 * (ice's flex descriptors and mlx5's CQEs grow the entry instead).
 */
#define REFNIC_QCREATE_RX_TSTAMP	0x0002u
/*
 * (1.6) RX, with REFNIC_CAP_RX_WB: completions are written back into the
 * descriptors (struct refnic_rx_cpl above). cq_iova then holds only the
 * ring_size stamps if REFNIC_QCREATE_RX_TSTAMP is set, and is not read
 * otherwise.
 */
#define REFNIC_QCREATE_RX_WB		0x0004u

/* REFNIC_ADMIN_FLOW_ADD, _DEL, _QUERY (1.3): the slot, and ADD's and QUERY's data. */
struct refnic_admin_flow {
	struct refnic_admin_buf buf;	/* ADD: refnic_flow_rule; QUERY: counters */
	uint32_t id;			/* slot, < refnic_identify.max_flows */
	uint32_t rsvd;
};

/* REFNIC_ADMIN_CLOCK_SET, _ADJUST (1.4). */
struct refnic_admin_clock {
	int64_t ns;
};

#define REFNIC_TIMESYNC_ON		0x1u	/* REFNIC_ADMIN_TIMESYNC_CTRL */

struct refnic_admin_queue_destroy {
	uint8_t type;
	uint8_t rsvd;
	uint16_t qid;
};

#define REFNIC_RX_MODE_UNICAST		0x1u
#define REFNIC_RX_MODE_MULTICAST	0x2u
#define REFNIC_RX_MODE_BROADCAST	0x4u
#define REFNIC_RX_MODE_PROMISC		0x8u
#define REFNIC_RX_MODE_ALLMULTI		0x10u

struct refnic_admin_cmd {
	uint8_t opcode;		/* refnic_admin_opcode */
	uint8_t flags;
	uint16_t cmd_id;	/* echoed in the completion */
	uint32_t rsvd;
	union {
		uint8_t raw[56];
		struct refnic_admin_buf buf;	/* IDENTIFY, STATS_GET, ... */
		struct refnic_admin_queue_create qcreate;
		struct refnic_admin_queue_destroy qdestroy;
		uint32_t value;			/* SET_MTU, SET_RX_MODE, ... */
		uint8_t mac[6];			/* SET_MAC, MAC_FILTER_* */
		uint16_t vlan_id;		/* VLAN_FILTER_* */
		struct refnic_admin_flow flow;	/* FLOW_* (1.3) */
		struct refnic_admin_clock clock; /* CLOCK_* (1.4) */
	};
};

struct refnic_admin_cpl {
	uint16_t cmd_id;
	uint16_t status;	/* refnic_admin_status */
	uint32_t result;	/* command specific */
	uint8_t rsvd[7];
	uint8_t phase;		/* REFNIC_PHASE_BIT */
};

#define REFNIC_LINK_UP			0x1u

/*
 * Push self-test (REFNIC_ADMIN_PUSH_CHECK): the driver stores the pattern
 * below into the whole line of a TX queue that is not created, then asks how
 * it arrived. Whole bursts that hold the pattern mean the mapping combines
 * writes and carries them intact; anything else, use TAIL and fetch.
 */
#define REFNIC_PUSH_CHECK_INTACT	0x1u	/* the line holds the pattern */
#define REFNIC_PUSH_CHECK_WHOLE		0x2u	/* it came in whole bursts */
#define REFNIC_PUSH_CHECK_XFERS_SHIFT	16	/* bits 31:16: transactions seen */

static inline uint64_t
refnic_push_test_word(unsigned int i)
{
	return (uint64_t)REFNIC_HW_MAGIC << 32 | (uint32_t)((i + 1) * 0x9e3779b9u);
}

/* REFNIC_ADMIN_IDENTIFY data. */
struct refnic_identify {
	uint32_t magic;			/* REFNIC_HW_MAGIC */
	uint32_t hw_version;
	uint64_t caps;			/* REFNIC_CAP_* */
	uint8_t mac[6];
	uint16_t max_queues;
	uint16_t min_ring_size;
	uint16_t max_ring_size;
	uint16_t min_mtu;
	uint16_t max_mtu;
	uint16_t max_tx_segs;
	uint16_t min_rx_buf_size;
	uint16_t num_vectors;
	uint16_t rss_key_size;
	uint16_t rss_reta_size;
	uint16_t max_mac_filters;
	uint32_t link_speed_mbps;
	uint32_t admin_timeout_us;
	uint32_t errata;		/* REFNIC_ERRATA_* */
	char fw_version[REFNIC_FW_VERSION_LEN];
	/* (1.3) With REFNIC_CAP_FLOW: flow table slots (at most
	 * REFNIC_MAX_FLOWS) and priority levels (0 .. flow_priorities - 1). */
	uint16_t max_flows;
	uint16_t flow_priorities;
	/* (1.4) With REFNIC_CAP_TSO: the largest TSO packet in bytes (at most
	 * REFNIC_MAX_TSO_SIZE) and its most data descriptors (at most
	 * REFNIC_MAX_TSO_SEGS). */
	uint32_t max_tso_size;
	uint16_t max_tso_segs;
	uint16_t rsvd_tso;
	uint8_t rsvd[156];
};

/* REFNIC_ADMIN_RSS_SET / RSS_GET data. */
struct refnic_rss_config {
	uint32_t hash_types;		/* REFNIC_RSS_HASH_* */
	uint32_t rsvd;
	uint8_t key[REFNIC_RSS_KEY_SIZE];
	uint8_t reta[REFNIC_RSS_RETA_SIZE]; /* queue ids */
};

#define REFNIC_RSS_HASH_IPV4		0x1u
#define REFNIC_RSS_HASH_TCP_IPV4	0x2u
#define REFNIC_RSS_HASH_UDP_IPV4	0x4u
#define REFNIC_RSS_HASH_IPV6		0x8u
#define REFNIC_RSS_HASH_TCP_IPV6	0x10u
#define REFNIC_RSS_HASH_UDP_IPV6	0x20u

/*
 * The flow table (REFNIC_CAP_FLOW, 1.3). A NIC's TCAM: each slot holds a key
 * and a mask over the fields below, a priority and actions. Every received
 * frame the MAC/VLAN filters and the MTU let in is looked up, before RSS:
 * the rules it matches ((frame key ^ spec) & mask == 0) are taken in
 * priority order (0 first; within a priority, the order they were added),
 * and the first rule with a fate decides where the frame goes:
 *  - DROP: dropped, counted in refnic_hw_stats.rx_filtered;
 *  - QUEUE: to RX queue `queue` (a queue not created counts rx_no_buffer);
 *  - RSS: to reta[hash % REFNIC_FLOW_RETA_SIZE], hash being the Toeplitz
 *    hash with the rule's key over the rule's hash types (as the port's
 *    RSS, REFNIC_RSS_HASH_*), reported with REFNIC_RXC_RSS_VALID; a frame
 *    those types do not hash goes to reta[0], without a hash;
 *  - PASSTHRU: not a fate: the lookup goes on to the next rule;
 *  - none of these: the port's RSS decides, and the lookup ends.
 * MARK puts the mark of the first matching rule that has one in the
 * completion (REFNIC_RXC_FLOW_MARK). COUNT counts frames and bytes a rule
 * matched, from FLOW_ADD; FLOW_QUERY reads them. The table survives queue
 * create/destroy and is emptied by a reset. An empty table costs the RX path
 * nothing. A frame received while a rule changes sees the table before or
 * after the change.
 *
 * Unlike the rest of the contract, the key's fields are in the frame's byte
 * order (network order): the key is compared with bytes of the frame.
 */
struct refnic_flow_key {
	uint8_t dst_mac[6];
	uint8_t src_mac[6];
	uint16_t ethertype;	/* bytes 12-13 of the frame: the TPID if tagged */
	uint16_t vlan_tci;	/* the tag's TCI; 0 if untagged */
	uint16_t l3_type;	/* the EtherType after the tag, if any */
	uint8_t layers;		/* REFNIC_FLOW_L_*: what the frame holds */
	uint8_t ip_proto;	/* IPv4 protocol, IPv6 next header */
	uint8_t src_ip[16];	/* IPv4: the first 4 bytes, the rest 0 */
	uint8_t dst_ip[16];
	uint16_t src_port;	/* TCP/UDP, not in IPv4 fragments */
	uint16_t dst_port;
	uint8_t rsvd[8];	/* 0 in frames; mask 0 */
};

#define REFNIC_FLOW_L_VLAN		0x01u	/* one tag (the device looks through one) */
#define REFNIC_FLOW_L_IPV4		0x02u
#define REFNIC_FLOW_L_IPV6		0x04u
#define REFNIC_FLOW_L_TCP		0x08u	/* ports valid */
#define REFNIC_FLOW_L_UDP		0x10u

/* refnic_flow_rule.actions */
#define REFNIC_FLOW_ACT_DROP		0x0001u
#define REFNIC_FLOW_ACT_QUEUE		0x0002u
#define REFNIC_FLOW_ACT_RSS		0x0004u
#define REFNIC_FLOW_ACT_PASSTHRU	0x0008u
#define REFNIC_FLOW_ACT_MARK		0x0010u
#define REFNIC_FLOW_ACT_COUNT		0x0020u
#define REFNIC_FLOW_ACT_FATES		(REFNIC_FLOW_ACT_DROP | REFNIC_FLOW_ACT_QUEUE | \
					 REFNIC_FLOW_ACT_RSS | REFNIC_FLOW_ACT_PASSTHRU)

/*
 * REFNIC_ADMIN_FLOW_ADD data. At most one fate bit; queue and reta entries
 * below refnic_identify.max_queues; rss_hash_types within REFNIC_RSS_HASH_*.
 * Else INVALID; a slot in use: BUSY; a slot beyond the table: NOSPC.
 */
struct refnic_flow_rule {
	struct refnic_flow_key spec;
	struct refnic_flow_key mask;	/* 1 bits are compared */
	uint16_t priority;		/* < refnic_identify.flow_priorities */
	uint16_t actions;		/* REFNIC_FLOW_ACT_* */
	uint16_t queue;			/* QUEUE */
	uint16_t rsvd0;
	uint32_t mark;			/* MARK */
	uint32_t rss_hash_types;	/* RSS: REFNIC_RSS_HASH_* */
	uint8_t rss_key[REFNIC_RSS_KEY_SIZE];
	uint8_t reta[REFNIC_FLOW_RETA_SIZE]; /* RSS: queue ids */
	uint8_t rsvd[8];
};

/* REFNIC_ADMIN_FLOW_QUERY data: a slot's counters since its FLOW_ADD. */
struct refnic_flow_counters {
	uint32_t id;			/* the slot asked about */
	uint32_t rsvd;
	uint64_t hits;			/* frames matched (rules with COUNT) */
	uint64_t bytes;			/* their bytes, as received */
};

/* Per-queue counters inside refnic_hw_stats. */
struct refnic_hw_queue_stats {
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t tx_doorbells;		/* TX TAIL writes seen */
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t rx_doorbells;		/* RX TAIL writes seen */
	uint64_t rx_no_buffer;		/* frames dropped: no posted buffer, or none
					 * usable (tail beyond the ring, DMA error) */
	uint64_t tx_malformed;		/* packets dropped: bad descriptors */
	uint64_t rx_interrupts;		/* vector raised for this RX queue */
	uint64_t tx_interrupts;		/* vector raised for this TX queue */
	uint64_t rx_missed_while_held;	/* (1.3) of rx_no_buffer: dropped while
					 * this queue's RX interrupt was held
					 * back by its interval */
};

/* REFNIC_ADMIN_STATS_GET data: the device's own counts. */
struct refnic_hw_stats {
	uint64_t admin_commands;	/* commands completed */
	uint64_t admin_doorbells;	/* AQ TAIL writes seen */
	uint64_t dma_reads;		/* DMA read transactions */
	uint64_t dma_writes;		/* DMA write transactions */
	uint64_t dma_errors;		/* IOVAs that did not translate */
	uint64_t rx_filtered;		/* frames dropped by MAC/VLAN filters,
					 * and by flow rules (1.3) */
	uint64_t rx_oversize;		/* frames above the MTU, or above one
					 * buffer on a device without SCATTER */
	uint64_t interrupts;		/* all vectors */
	uint64_t resets;
	uint64_t control_latency_us;	/* time admin commands and resets took
					 * by design: the floor of any wait */
	uint64_t events_posted;		/* async events written */
	uint64_t events_dropped;	/* async events lost: queue off or full */
	uint64_t cable_tx_dropped;	/* frames sent that the cable lost: no
					 * link, far end full, kernel refused */
	uint64_t cable_rx_dropped;	/* frames from the cable not taken:
					 * malformed, or sent before a restart */
	uint64_t doorbells_dropped;	/* TAIL writes the device missed
					 * (REFNIC_ERRATA_MISSED_DOORBELL) */
	uint64_t tx_push_lines;		/* push lines sent without a fetch */
	struct refnic_hw_queue_stats q[REFNIC_MAX_QUEUES];
	/* (1.7) Datagrams a network cable (VXLAN) refused, each counted once,
	 * in this order of checks; 0 on other cables. */
	uint64_t cable_rx_foreign;	/* from an address other than the remote */
	uint64_t cable_rx_truncated;	/* shorter than a VXLAN + Ethernet header */
	uint64_t cable_rx_bad_header;	/* I flag unset, or a reserved bit set */
	uint64_t cable_rx_bad_vni;	/* another VNI */
	uint64_t cable_rx_oversize;	/* inner frame above REFNIC_MAX_FRAME_LEN */
	uint64_t cable_tx_oversize;	/* frames the path MTU refused: a VTEP
					 * does not fragment (RFC 7348 4.3) */
};

/* ---------------------------------------------------------------------------
 * Async events
 */
enum refnic_event_type {
	REFNIC_EVENT_LINK_CHANGE = 1,	/* data: REFNIC_LINK_* */
	REFNIC_EVENT_FATAL = 2,		/* data: REFNIC_FATAL_* */
	REFNIC_EVENT_RESET_DONE = 3,
	REFNIC_EVENT_QUEUE_ERROR = 4,	/* data: type << 16 | qid */
};

struct refnic_event {
	uint16_t type;		/* refnic_event_type */
	uint16_t rsvd0;
	uint32_t data;
	uint8_t rsvd[7];
	uint8_t phase;		/* REFNIC_PHASE_BIT */
};

/* Layout checks: both sides build these, so a change breaks both builds. */
#define REFNIC_HW_LAYOUT_CHECK(type, size) \
	_Static_assert(sizeof(type) == (size), #type " is " #size " bytes")
REFNIC_HW_LAYOUT_CHECK(struct refnic_tx_desc, 16);
REFNIC_HW_LAYOUT_CHECK(struct refnic_tx_ctx_desc, 16);
_Static_assert(__builtin_offsetof(struct refnic_tx_ctx_desc, flags) ==
	       __builtin_offsetof(struct refnic_tx_desc, flags), "flags where a data's are");
REFNIC_HW_LAYOUT_CHECK(struct refnic_tx_cpl, 8);
REFNIC_HW_LAYOUT_CHECK(struct refnic_rx_desc, 16);
REFNIC_HW_LAYOUT_CHECK(struct refnic_rx_cpl, 16);
REFNIC_HW_LAYOUT_CHECK(struct refnic_admin_cmd, 64);
REFNIC_HW_LAYOUT_CHECK(struct refnic_admin_cpl, 16);
REFNIC_HW_LAYOUT_CHECK(struct refnic_admin_queue_create, 32);
REFNIC_HW_LAYOUT_CHECK(struct refnic_identify, 256);
REFNIC_HW_LAYOUT_CHECK(struct refnic_rss_config, 176);
REFNIC_HW_LAYOUT_CHECK(struct refnic_event, 16);
REFNIC_HW_LAYOUT_CHECK(struct refnic_push_hdr, 8);
_Static_assert(REFNIC_PUSH_END <= REFNIC_BAR0_REGS_END, "push window inside BAR0");
REFNIC_HW_LAYOUT_CHECK(struct refnic_admin_flow, 24);
REFNIC_HW_LAYOUT_CHECK(struct refnic_admin_clock, 8);
_Static_assert(REFNIC_REG_CLOCK_END <= REFNIC_REG_VEC_BASE, "clock block below the vectors");
REFNIC_HW_LAYOUT_CHECK(struct refnic_flow_key, 64);
REFNIC_HW_LAYOUT_CHECK(struct refnic_flow_rule, 256);
REFNIC_HW_LAYOUT_CHECK(struct refnic_flow_counters, 24);
REFNIC_HW_LAYOUT_CHECK(struct refnic_hw_queue_stats, 88);
REFNIC_HW_LAYOUT_CHECK(struct refnic_hw_stats, 128 + 88 * REFNIC_MAX_QUEUES + 48);

#endif /* _REFNIC_HW_H_ */
