/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The device clock (REFNIC_CAP_RX_TSTAMP) and the IEEE 1588 latches
 * (REFNIC_CAP_PTP), contract 1.4.
 *
 * The clock counts nanoseconds from the host's TSC, as a NIC's PHC counts
 * from its own oscillator: ns = base_ns + (host - base_host) * mult, host
 * being CLOCK_MONOTONIC_RAW, which is the TSC scaled by the kernel's own
 * calibration. Not rte_get_tsc_hz(): on a VM that is the CPU's nominal
 * frequency, 0.2% off here, and a PTP slave against the host's clock saw
 * 240 us of drift every 125 ms Sync interval. Unset, the clock reads
 * CLOCK_MONOTONIC_RAW, so every refnic port of the host agrees until one
 * is set or adjusted; a timing profile may make the oscillator run fast
 * (refnic_emu_profile.c, clock_skew_ppb). CLOCK_SET and CLOCK_ADJUST move
 * base_ns, never the rate.
 *
 * The state lives in the BAR's memzone, next to the registers: a secondary
 * process's trap latches the clock itself (refnic_emu_remote.c), on its
 * own thread, instead of waiting for engine 0 to replay the store. Writers
 * (admin commands, on engine 0) are serialised; readers take a sequence
 * count, and a latch store takes latch_lock so that two threads latching
 * at once leave a pair that belongs together.
 */

#include <time.h>

#include "refnic_emu_clock.h"
#include "refnic_emu_parse.h"
#include "refnic_emu_priv.h"

#define NSEC_PER_SEC	UINT64_C(1000000000)

static inline uint64_t
host_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

void
refnic_emu_clock_init(struct refnic_emu_clock *c, int32_t skew_ppb)
{
	memset(c, 0, sizeof(*c));
	rte_spinlock_init(&c->latch_lock);
	/* Device ns per host ns in 32.32: 1 + skew, the oscillator's error. */
	c->mult = (uint64_t)(((unsigned __int128)(NSEC_PER_SEC + skew_ppb) << 32) /
			     NSEC_PER_SEC);
}

static inline int64_t
clock_at(const struct refnic_emu_clock *c, uint64_t base_host, int64_t base_ns, uint64_t host)
{
	return base_ns + (int64_t)(((unsigned __int128)(host - base_host) * c->mult) >> 32);
}

int64_t
refnic_emu_clock_now(const struct refnic_emu_clock *c)
{
	uint64_t base_host, host;
	int64_t base_ns;
	uint32_t seq;

	do {
		seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		base_host = __atomic_load_n(&c->base_host, __ATOMIC_RELAXED);
		base_ns = __atomic_load_n(&c->base_ns, __ATOMIC_RELAXED);
		host = host_ns();
		rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) || __atomic_load_n(&c->seq, __ATOMIC_RELAXED) != seq);
	/* Read before base_host (another thread set it a hair later): base_ns,
	 * the clock never steps back past a set or adjust. */
	return host < base_host ? base_ns : clock_at(c, base_host, base_ns, host);
}

/* CLOCK_SET (set) or CLOCK_ADJUST: a new base from now on; false if the
 * clock would go below 0 or wrap. */
static bool
clock_move(struct refnic_emu_clock *c, int64_t ns, bool set)
{
	uint64_t host = host_ns();
	int64_t base_ns = ns;

	if (!set && __builtin_add_overflow(clock_at(c, c->base_host, c->base_ns, host), ns,
					   &base_ns))
		return false;
	if (base_ns < 0)
		return false;

	__atomic_store_n(&c->seq, c->seq + 1, __ATOMIC_RELAXED);
	rte_atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&c->base_host, host, __ATOMIC_RELAXED);
	__atomic_store_n(&c->base_ns, base_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&c->seq, c->seq + 1, __ATOMIC_RELEASE);
	return true;
}

static inline void
reg_set(uint8_t *bar0, uint32_t off, uint32_t val)
{
	__atomic_store_n((uint32_t *)(bar0 + off), val, __ATOMIC_RELEASE);
}

/* A store into the clock block, on the storing thread (the trap). */
void
refnic_emu_clock_store(struct refnic_emu_clock *c, uint8_t *bar0, uint32_t off)
{
	uint64_t ns;

	/* No clock, nothing latches (caps_off=rx_tstamp+ptp). */
	if (!(__atomic_load_n((uint32_t *)(bar0 + REFNIC_REG_CAPS_LO), __ATOMIC_RELAXED) &
	      (REFNIC_CAP_RX_TSTAMP | REFNIC_CAP_PTP)))
		return;
	switch (off) {
	case REFNIC_REG_CLOCK_LATCH:
		rte_spinlock_lock(&c->latch_lock);
		ns = refnic_emu_clock_now(c);
		reg_set(bar0, REFNIC_REG_CLOCK_LO, (uint32_t)ns);
		reg_set(bar0, REFNIC_REG_CLOCK_HI, (uint32_t)(ns >> 32));
		rte_spinlock_unlock(&c->latch_lock);
		break;
	case REFNIC_REG_PTP_TX_STATUS:
	case REFNIC_REG_PTP_RX_STATUS:
		reg_set(bar0, off, 0);	/* released: the next event message latches */
		break;
	default:
		break;			/* read-only, or reserved */
	}
}

/* A PTP latch takes ns if it is free (status 0): the first event wins. */
void
refnic_emu_ptp_latch(struct refnic_emu_clock *c, uint8_t *bar0, bool tx, uint64_t ns)
{
	uint32_t lo = tx ? REFNIC_REG_PTP_TX_LO : REFNIC_REG_PTP_RX_LO;
	uint32_t *status = (uint32_t *)(bar0 + (tx ? REFNIC_REG_PTP_TX_STATUS :
						      REFNIC_REG_PTP_RX_STATUS));

	rte_spinlock_lock(&c->latch_lock);
	if (__atomic_load_n(status, __ATOMIC_ACQUIRE) == 0) {
		reg_set(bar0, lo, (uint32_t)ns);
		reg_set(bar0, lo + 4, (uint32_t)(ns >> 32));
		__atomic_store_n(status, REFNIC_PTP_LATCH_VALID, __ATOMIC_RELEASE);
	}
	rte_spinlock_unlock(&c->latch_lock);
}

/*
 * Is this frame PTP (REFNIC_RXC_PTP), and an event message (latched)? L2:
 * EtherType 0x88F7, possibly behind one VLAN tag; over UDP: port 319
 * (event) or 320 (general), from the parsed headers.
 */
bool
refnic_emu_ptp_classify(const uint8_t *p, uint32_t len, bool *event)
{
	uint32_t off = EMU_ETH_HLEN;
	uint16_t type;
	struct refnic_pkt_hdrs h;

	*event = false;
	if (len < EMU_ETH_HLEN)
		return false;
	type = (uint16_t)(p[12] << 8 | p[13]);
	if (type == EMU_ETH_P_VLAN && len >= EMU_ETH_HLEN + 4) {
		type = (uint16_t)(p[16] << 8 | p[17]);
		off += 4;
	}
	if (type == REFNIC_PTP_ETHERTYPE) {
		*event = len > off && (p[off] & 0x0f) < 8;
		return true;
	}
	if (type != EMU_ETH_P_IPV4 && type != EMU_ETH_P_IPV6)
		return false;
	refnic_emu_parse(p, len, &h);
	if (h.ip_version == 0 || h.frag || h.proto != EMU_IPPROTO_UDP || h.l4 + 8 > h.len)
		return false;
	type = (uint16_t)(p[h.l4 + 2] << 8 | p[h.l4 + 3]);	/* destination port */
	if (type != REFNIC_PTP_UDP_EVENT_PORT && type != REFNIC_PTP_UDP_EVENT_PORT + 1)
		return false;
	*event = type == REFNIC_PTP_UDP_EVENT_PORT && len > h.l4 + 8 && (p[h.l4 + 8] & 0x0f) < 8;
	return true;
}

/* A reset: timesync off, latches empty (the registers are zeroed); the
 * clock runs on, as a PHC does across a function reset. */
void
refnic_emu_clock_reset(struct refnic_emu_clock *c)
{
	__atomic_store_n(&c->timesync, false, __ATOMIC_RELAXED);
}

uint16_t
refnic_emu_admin_clock(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd)
{
	struct refnic_emu_clock *c = emu->clock;

	switch (cmd->opcode) {
	case REFNIC_ADMIN_CLOCK_SET:
	case REFNIC_ADMIN_CLOCK_ADJUST:
		/* Adjustable clock: IEEE 1588. A stamp-only device's runs free. */
		if (!emu_has_cap(emu, REFNIC_CAP_PTP))
			return REFNIC_ADMIN_STS_UNSUPPORTED;	/* caps_off=ptp */
		return clock_move(c, cmd->clock.ns, cmd->opcode == REFNIC_ADMIN_CLOCK_SET) ?
		       REFNIC_ADMIN_STS_OK : REFNIC_ADMIN_STS_INVALID;
	case REFNIC_ADMIN_TIMESYNC_CTRL:
		if (!emu_has_cap(emu, REFNIC_CAP_PTP))
			return REFNIC_ADMIN_STS_UNSUPPORTED;
		if (cmd->value & ~REFNIC_TIMESYNC_ON)
			return REFNIC_ADMIN_STS_INVALID;
		/* Off or on, the latches start empty. */
		emu_reg_write(emu, REFNIC_REG_PTP_TX_STATUS, 0);
		emu_reg_write(emu, REFNIC_REG_PTP_RX_STATUS, 0);
		__atomic_store_n(&c->timesync, cmd->value == REFNIC_TIMESYNC_ON, __ATOMIC_RELEASE);
		return REFNIC_ADMIN_STS_OK;
	default:
		return REFNIC_ADMIN_STS_UNSUPPORTED;
	}
}
