/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The device clock and IEEE 1588 (contract 1.4): read_clock and the RX
 * timestamp dynfield (REFNIC_CAP_RX_TSTAMP), the timesync ops
 * (REFNIC_CAP_PTP).
 *
 * Reads go through the BAR: a store to CLOCK_LATCH, then CLOCK_LO/HI; the
 * PTP latches hold one stamp each until a store to their STATUS releases
 * them. Those pairs are the port's, shared by every thread and process
 * that reads them, so clock_lock (in the shared adapter) keeps each
 * store-then-read whole. Moving the clock is an admin command, which only
 * the primary process issues.
 */

#include <time.h>

#include <rte_mbuf_dyn.h>

#include "refnic.h"
#include "refnic_rxtx.h"

#define NSEC_PER_SEC	INT64_C(1000000000)

/* The timestamp dynfield and dynflag, one per process (both the same in all). */
int
refnic_rx_tstamp_register(int *offset, uint64_t *flag)
{
	if (rte_mbuf_dyn_rx_timestamp_register(offset, flag) != 0) {
		PMD_DRV_LOG(ERR, "cannot register the RX timestamp mbuf field: %s",
			    rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

static bool
has_cap(const struct rte_eth_dev *dev, uint64_t cap)
{
	return refnic_adapter(dev)->ident.caps & cap;
}

static uint64_t
reg_read64(const struct refnic_bar *hw, uint32_t lo)
{
	uint32_t l = refnic_reg_read(hw, lo);

	return (uint64_t)refnic_reg_read(hw, lo + 4) << 32 | l;
}

static uint64_t
clock_read(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct refnic_bar *hw = refnic_queue_bar(dev->data->port_id);
	uint64_t ns;

	rte_spinlock_lock(&ad->clock_lock);
	refnic_reg_write(hw, REFNIC_REG_CLOCK_LATCH, 1);
	ns = reg_read64(hw, REFNIC_REG_CLOCK_LO);
	rte_spinlock_unlock(&ad->clock_lock);
	return ns;
}

static void
ns_to_timespec(uint64_t ns, struct timespec *ts)
{
	ts->tv_sec = ns / NSEC_PER_SEC;
	ts->tv_nsec = ns % NSEC_PER_SEC;
}

/* The device clock, in nanoseconds: the unit of the RX timestamps. */
int
refnic_read_clock(struct rte_eth_dev *dev, uint64_t *clock)
{
	if (!has_cap(dev, REFNIC_CAP_RX_TSTAMP | REFNIC_CAP_PTP))
		return -ENOTSUP;
	*clock = clock_read(dev);
	return 0;
}

static int
timesync_ctrl(struct rte_eth_dev *dev, bool on)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct refnic_admin_cmd cmd = {
		.opcode = REFNIC_ADMIN_TIMESYNC_CTRL,
		.value = on ? REFNIC_TIMESYNC_ON : 0,
	};
	int ret;

	/* The device says whether it can (UNSUPPORTED: -ENOTSUP). */
	ret = refnic_admin_exec(ad, &cmd, NULL);
	if (ret == 0)
		ad->timesync = on;
	return ret;
}

int
refnic_timesync_enable(struct rte_eth_dev *dev)
{
	return timesync_ctrl(dev, true);
}

int
refnic_timesync_disable(struct rte_eth_dev *dev)
{
	return timesync_ctrl(dev, false);
}

/* dev_start: a device reset turned timesync off; the application had it on. */
int
refnic_timesync_restore(struct rte_eth_dev *dev)
{
	return refnic_adapter(dev)->timesync ? timesync_ctrl(dev, true) : 0;
}

/* A PTP latch's stamp, then the latch released; -EINVAL if it holds none. */
static int
latch_read(struct rte_eth_dev *dev, uint32_t lo, uint32_t status, struct timespec *ts)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct refnic_bar *hw = refnic_queue_bar(dev->data->port_id);
	int ret = -EINVAL;

	if (!has_cap(dev, REFNIC_CAP_PTP))
		return -ENOTSUP;
	rte_spinlock_lock(&ad->clock_lock);
	if (refnic_reg_read(hw, status) & REFNIC_PTP_LATCH_VALID) {
		ns_to_timespec(reg_read64(hw, lo), ts);
		refnic_reg_write(hw, status, 0);
		ret = 0;
	}
	rte_spinlock_unlock(&ad->clock_lock);
	return ret;
}

/* One RX latch: index 0, what the RX burst puts in mbuf->timesync. */
int
refnic_timesync_read_rx_timestamp(struct rte_eth_dev *dev, struct timespec *ts,
				  uint32_t index)
{
	if (index != 0)
		return -EINVAL;
	return latch_read(dev, REFNIC_REG_PTP_RX_LO, REFNIC_REG_PTP_RX_STATUS, ts);
}

int
refnic_timesync_read_tx_timestamp(struct rte_eth_dev *dev, struct timespec *ts)
{
	return latch_read(dev, REFNIC_REG_PTP_TX_LO, REFNIC_REG_PTP_TX_STATUS, ts);
}

static int
clock_cmd(struct rte_eth_dev *dev, uint8_t opcode, int64_t ns)
{
	struct refnic_admin_cmd cmd = { .opcode = opcode, .clock = { .ns = ns } };

	return refnic_admin_exec(refnic_adapter(dev), &cmd, NULL);
}

int
refnic_timesync_adjust_time(struct rte_eth_dev *dev, int64_t delta)
{
	return clock_cmd(dev, REFNIC_ADMIN_CLOCK_ADJUST, delta);
}

int
refnic_timesync_read_time(struct rte_eth_dev *dev, struct timespec *ts)
{
	if (!has_cap(dev, REFNIC_CAP_PTP))
		return -ENOTSUP;
	ns_to_timespec(clock_read(dev), ts);
	return 0;
}

int
refnic_timesync_write_time(struct rte_eth_dev *dev, const struct timespec *ts)
{
	/* The clock counts up from 0 and fits 63 bits: ~292 years. */
	if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= NSEC_PER_SEC ||
	    (uint64_t)ts->tv_sec > (uint64_t)(INT64_MAX / NSEC_PER_SEC) - 1) {
		PMD_DRV_LOG(ERR, "port %u: time %jd.%09ld out of the clock's range",
			    dev->data->port_id, (intmax_t)ts->tv_sec, ts->tv_nsec);
		return -EINVAL;
	}
	return clock_cmd(dev, REFNIC_ADMIN_CLOCK_SET,
			 (int64_t)ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec);
}
