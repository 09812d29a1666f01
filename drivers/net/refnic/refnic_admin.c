/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The admin queue: submit one command, wait for its completion with a
 * bounded backoff, turn the device's status into an errno.
 *
 * Waiting is where ENA lost 170 ms (netdev, 2020-02-29, "[PATCH] ena: Speed
 * up initialization 90x by reducing poll delays"): a fixed
 * 5 ms sleep for commands that finish in microseconds. The default policy
 * polls at once, then every microsecond, then waits an eighth of the time
 * already waited: the answer is noticed at most ~12.5% after it lands, and a
 * slow command costs polls that grow with the log of its latency, up to one
 * a millisecond. Short waits spin (a sleep costs more than it saves), long
 * ones sleep with a tight timer slack. A hard deadline, advertised by the
 * device, ends every wait; a command that misses it marks the port failed.
 * devtools/bench.sh init measures all of this against the device's own
 * latency.
 */

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>

#include <rte_cycles.h>
#include <rte_memzone.h>

#include "refnic.h"

#define BACKOFF_MIN_US		UINT64_C(1)	/* first waits: spin this long */
#define BACKOFF_MAX_US		UINT64_C(1000)	/* cap: a slow command polls 1/ms */
/* A sleep costs ~10 us more than asked with a 1 us timer slack (60 us with
 * the default 50 us slack), measured on the project's VM: shorter waits spin. */
#define BACKOFF_SPIN_MAX_US	50
#define SLEEP_TIMER_SLACK_NS	1000
/* A device in FATAL never answers; looking costs an MMIO read, so only
 * waits this long look. */
#define FATAL_CHECK_AFTER_US	1000
#define ADMIN_TIMEOUT_DEFAULT_US 3000000u
#define ADMIN_TIMEOUT_MIN_US	1000u
#define ADMIN_TIMEOUT_MAX_US	30000000u
#define RESET_TIMEOUT_DEFAULT_US 1000000u
/* A completion time the device states (REFNIC_CAP_ADMIN_DUE) beyond this is
 * not waited for blindly: backoff polls a longer wait often enough. */
#define ADMIN_DUE_MAX_US	1000u

int
refnic_admin_status_to_errno(uint16_t status)
{
	switch (status) {
	case REFNIC_ADMIN_STS_OK:
		return 0;
	case REFNIC_ADMIN_STS_UNSUPPORTED:
		return -ENOTSUP;
	case REFNIC_ADMIN_STS_INVALID:
		return -EINVAL;
	case REFNIC_ADMIN_STS_NOSPC:
		return -ENOSPC;
	case REFNIC_ADMIN_STS_NOT_FOUND:
		return -ENOENT;
	case REFNIC_ADMIN_STS_BUSY:
		return -EBUSY;
	case REFNIC_ADMIN_STS_DMA_ERROR:
		return -EFAULT;
	default:
		return -EIO;
	}
}

static uint64_t
us_to_timer(uint64_t us)
{
	return us * rte_get_timer_hz() / US_PER_S;
}

/*
 * Busy-wait until the timer reads end, but let a thread that shares this
 * core run: with an emulated device that thread may be the device itself.
 * Without one, sched_yield() returns at once and this is a plain spin.
 */
static void
spin_until(uint64_t end)
{
	do {
		sched_yield();
	} while (rte_get_timer_cycles() < end);
}

static uint64_t
timer_to_us(uint64_t cycles)
{
	return cycles * US_PER_S / rte_get_timer_hz();
}

/* The wait before the next poll, given the previous one and time waited. */
static uint32_t
poll_delay_us(const struct refnic_poll_policy *p, uint32_t prev_us, uint64_t waited_us)
{
	switch (p->mode) {
	case REFNIC_POLL_FIXED:
		return p->min_us;
	case REFNIC_POLL_EXP:
		return prev_us == 0 ? p->min_us : RTE_MIN(prev_us * 2, p->max_us);
	default:
		return RTE_MAX(BACKOFF_MIN_US, RTE_MIN(waited_us / 8, BACKOFF_MAX_US));
	}
}

typedef bool (*refnic_wait_cond_t)(struct refnic_adapter *ad, const void *arg);

static uint32_t
hw_state(const struct refnic_adapter *ad)
{
	return refnic_reg_read(&ad->hw, REFNIC_REG_STATUS) & REFNIC_STATUS_STATE_MASK;
}

/*
 * Poll cond until it holds or timeout_us passes. Returns 0, -ETIMEDOUT, or
 * -EIO if the device went FATAL meanwhile; adds the polls made, the time
 * waited and a timeout to acct, if given. due (timer cycles, 0 if unknown)
 * is when the device said cond will hold: no poll before it, one at it.
 */
static int
refnic_poll_until(struct refnic_adapter *ad, uint32_t timeout_us,
		  refnic_wait_cond_t cond, refnic_wait_cond_t fatal_final, const void *arg,
		  uint64_t due, struct refnic_admin_stats *acct)
{
	const struct refnic_poll_policy *p = &ad->admin.policy;
	uint64_t start = rte_get_timer_cycles();
	uint64_t deadline = start + us_to_timer(timeout_us);
	uint64_t now = start, next, polls = 0;
	int old_slack = -1, ret;
	uint32_t delay = 0;

	for (;;) {
		polls++;
		if (cond(ad, arg)) {
			ret = 0;
			break;
		}
		now = rte_get_timer_cycles();
		if (now >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		if (timer_to_us(now - start) >= FATAL_CHECK_AFTER_US &&
		    hw_state(ad) == REFNIC_STATE_FATAL &&
		    (fatal_final == NULL || fatal_final(ad, arg))) {
			ret = -EIO;
			break;
		}
		delay = poll_delay_us(p, delay, timer_to_us(now - start));
		/* The device said when: poll then, not before. */
		if (due > now)
			delay = RTE_MAX(timer_to_us(due - now), UINT64_C(1));
		delay = RTE_MIN((uint64_t)delay, timer_to_us(deadline - now) + 1);
		if (p->mode == REFNIC_POLL_BACKOFF && delay <= BACKOFF_SPIN_MAX_US) {
			next = now + us_to_timer(delay);
			spin_until(due > now && due <= next + us_to_timer(1) ? due : next);
			continue;
		}
		if (old_slack < 0) {
			old_slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
			prctl(PR_SET_TIMERSLACK, SLEEP_TIMER_SLACK_NS, 0, 0, 0);
		}
		rte_delay_us_sleep(delay);
	}
	if (old_slack > 0)
		prctl(PR_SET_TIMERSLACK, old_slack, 0, 0, 0);
	now = rte_get_timer_cycles();	/* the last wait counts too */
	if (acct != NULL) {
		acct->polls += polls;
		acct->wait_us += timer_to_us(now - start);
		acct->timeouts += ret == -ETIMEDOUT;
	}
	return ret;
}

/*
 * Nothing the status says counts until RESET_GEN moves: before that it is
 * the state from before the reset (a device leaving FATAL reads FATAL until
 * it takes the reset, which a busy machine may delay past a millisecond).
 * FATAL once it moved is final; a device that never takes the reset is
 * caught by the reset timeout.
 */
static bool
reset_taken(struct refnic_adapter *ad, const void *arg)
{
	return refnic_reg_read(&ad->hw, REFNIC_REG_RESET_GEN) != *(const uint32_t *)arg;
}

static bool
reset_done(struct refnic_adapter *ad, const void *arg)
{
	uint32_t gen_before = *(const uint32_t *)arg;

	return refnic_reg_read(&ad->hw, REFNIC_REG_RESET_GEN) != gen_before &&
	       hw_state(ad) == REFNIC_STATE_READY;
}

/* Reset the function and wait, bounded in time, until it is ready again. */
int
refnic_hw_reset(struct refnic_adapter *ad)
{
	uint32_t magic = refnic_reg_read(&ad->hw, REFNIC_REG_MAGIC);
	uint32_t version = refnic_reg_read(&ad->hw, REFNIC_REG_VERSION);
	uint32_t timeout_us, gen;
	int ret;

	if (magic != REFNIC_HW_MAGIC || (version >> 16) != REFNIC_HW_VERSION_MAJOR) {
		PMD_INIT_LOG(ERR, "not a refnic v%u device (magic 0x%08x, version 0x%08x)",
			     REFNIC_HW_VERSION_MAJOR, magic, version);
		return -ENODEV;
	}
	timeout_us = refnic_reg_read(&ad->hw, REFNIC_REG_RESET_TIMEOUT_US);
	if (timeout_us == 0 || timeout_us > ADMIN_TIMEOUT_MAX_US)
		timeout_us = RESET_TIMEOUT_DEFAULT_US;

	gen = refnic_reg_read(&ad->hw, REFNIC_REG_RESET_GEN);
	refnic_reg_write(&ad->hw, REFNIC_REG_RESET, REFNIC_RESET_REQUEST);
	ret = refnic_poll_until(ad, timeout_us, reset_done, reset_taken, &gen, 0,
				&ad->reset_stats);
	if (ret == -ETIMEDOUT) {
		PMD_INIT_LOG(ERR, "device did not leave reset within %u us (state %u)",
			     timeout_us, hw_state(ad));
		return -ETIMEDOUT;
	}
	if (ret != 0) {
		PMD_INIT_LOG(ERR, "device reports a fatal error (code %u) after reset",
			     refnic_reg_read(&ad->hw, REFNIC_REG_FATAL_CODE));
		return -EIO;
	}
	return 0;
}

int
refnic_admin_init(struct refnic_adapter *ad)
{
	struct refnic_admin *aq = &ad->admin;
	size_t sq_len = REFNIC_ADMIN_DEPTH * sizeof(*aq->sq);
	size_t cq_len = REFNIC_ADMIN_DEPTH * sizeof(*aq->cq);
	char name[RTE_MEMZONE_NAMESIZE];
	uint32_t timeout_us;

	if (aq->mz == NULL) {
		snprintf(name, sizeof(name), "refnic_aq_%p", (void *)ad);
		aq->mz = rte_memzone_reserve_aligned(name, sq_len + cq_len + REFNIC_ADMIN_BUF_SIZE,
						     SOCKET_ID_ANY, RTE_MEMZONE_IOVA_CONTIG,
						     RTE_CACHE_LINE_SIZE);
		if (aq->mz == NULL) {
			PMD_INIT_LOG(ERR, "cannot allocate the admin queue: %s",
				     rte_strerror(rte_errno));
			return -ENOMEM;
		}
		pthread_mutex_init(&aq->lock, NULL);
	}
	memset(aq->mz->addr, 0, aq->mz->len);
	aq->sq = aq->mz->addr;
	aq->cq = RTE_PTR_ADD(aq->mz->addr, sq_len);
	aq->buf = RTE_PTR_ADD(aq->mz->addr, sq_len + cq_len);
	aq->buf_iova = aq->mz->iova + sq_len + cq_len;
	aq->tail = 0;
	aq->phase = REFNIC_PHASE_BIT;
	aq->policy = ad->args.admin_poll;
	aq->due_known = aq->policy.mode == REFNIC_POLL_BACKOFF &&
			(refnic_reg_read(&ad->hw, REFNIC_REG_CAPS_LO) & REFNIC_CAP_ADMIN_DUE);

	timeout_us = refnic_reg_read(&ad->hw, REFNIC_REG_ADMIN_TIMEOUT_US);
	aq->timeout_us = timeout_us == 0 ? ADMIN_TIMEOUT_DEFAULT_US :
		RTE_MAX(ADMIN_TIMEOUT_MIN_US, RTE_MIN(timeout_us, ADMIN_TIMEOUT_MAX_US));

	refnic_reg_write64(&ad->hw, REFNIC_REG_AQ_BASE_LO, aq->mz->iova);
	refnic_reg_write(&ad->hw, REFNIC_REG_AQ_DEPTH, REFNIC_ADMIN_DEPTH);
	refnic_reg_write64(&ad->hw, REFNIC_REG_ACQ_BASE_LO, aq->mz->iova + sq_len);
	refnic_reg_write(&ad->hw, REFNIC_REG_ACQ_DEPTH, REFNIC_ADMIN_DEPTH);
	return 0;
}

void
refnic_admin_fini(struct refnic_adapter *ad)
{
	struct refnic_admin *aq = &ad->admin;

	if (aq->mz == NULL)
		return;
	rte_memzone_free(aq->mz);
	aq->mz = NULL;
	pthread_mutex_destroy(&aq->lock);
}

/* Between polls, a device that may miss doorbells may need its AQ_TAIL again. */
static bool
admin_cpl_ready(struct refnic_adapter *ad, const void *arg)
{
	const struct refnic_admin_cpl *cpl = arg;

	if ((__atomic_load_n(&cpl->phase, __ATOMIC_ACQUIRE) & REFNIC_PHASE_BIT) ==
	    ad->admin.phase)
		return true;
	refnic_db_admin_wait(ad);
	return false;
}

/*
 * When the command just submitted completes, if the device fetched it in
 * the AQ_TAIL store and said how long it takes (REFNIC_CAP_ADMIN_DUE);
 * else 0. Taken after the store: the device's clock started before.
 */
static uint64_t
admin_due(struct refnic_adapter *ad)
{
	uint64_t now = rte_get_timer_cycles();
	uint32_t due_us;

	if (!ad->admin.due_known ||
	    refnic_reg_read(&ad->hw, REFNIC_REG_AQ_HEAD) != ad->admin.tail)
		return 0;
	due_us = refnic_reg_read(&ad->hw, REFNIC_REG_AQ_DUE_US);
	return due_us <= ADMIN_DUE_MAX_US ? now + us_to_timer(due_us) : 0;
}

/* Submit cmd and wait for it; the caller holds the admin lock. */
static int
admin_exec_locked(struct refnic_adapter *ad, struct refnic_admin_cmd *cmd, uint32_t *result)
{
	struct refnic_admin *aq = &ad->admin;
	const char *op = refnic_admin_opcode_name(cmd->opcode);
	uint16_t slot = aq->tail;
	uint64_t due;
	struct refnic_admin_cpl cpl;
	int ret;

	if (refnic_port_failed(ad))
		return -EIO;
	cmd->cmd_id = ++aq->next_cmd_id;
	aq->sq[slot] = *cmd;
	aq->tail = (slot + 1) & (REFNIC_ADMIN_DEPTH - 1);
	refnic_reg_write(&ad->hw, REFNIC_REG_AQ_TAIL, aq->tail);
	due = admin_due(ad);
	aq->stats.commands++;
	refnic_db_admin_wait_start(ad);

	ret = refnic_poll_until(ad, aq->timeout_us, admin_cpl_ready, NULL, &aq->cq[slot], due,
				&aq->stats);
	if (ret != 0) {
		if (ret == -ETIMEDOUT)
			PMD_DRV_LOG(ERR, "admin command %s timed out after %u us; port failed, "
				    "reset it to recover", op, aq->timeout_us);
		else
			PMD_DRV_LOG(ERR, "admin command %s: device fatal error (code %u); "
				    "port failed, reset it to recover", op,
				    refnic_reg_read(&ad->hw, REFNIC_REG_FATAL_CODE));
		refnic_port_fail(ad, ret == -ETIMEDOUT ? "admin command timed out" :
				 "device fatal error");
		return ret;
	}
	rte_io_rmb();
	cpl = aq->cq[slot];
	if (slot == REFNIC_ADMIN_DEPTH - 1)
		aq->phase ^= REFNIC_PHASE_BIT;
	if (cpl.cmd_id != cmd->cmd_id) {
		PMD_DRV_LOG(ERR, "admin command %s: completion carries id %u, expected %u; "
			    "port failed", op, cpl.cmd_id, cmd->cmd_id);
		refnic_port_fail(ad, "admin completion for another command");
		return -EIO;
	}
	ret = refnic_admin_status_to_errno(cpl.status);
	if (ret != 0 && ret != -ENOTSUP)
		PMD_DRV_LOG(ERR, "admin command %s failed: status %u (%s)",
			    op, cpl.status, rte_strerror(-ret));
	if (result != NULL)
		*result = cpl.result;
	return ret;
}

int
refnic_admin_exec(struct refnic_adapter *ad, struct refnic_admin_cmd *cmd, uint32_t *result)
{
	int ret;

	pthread_mutex_lock(&ad->admin.lock);
	ret = admin_exec_locked(ad, cmd, result);
	pthread_mutex_unlock(&ad->admin.lock);
	return ret;
}

/* A command with a data buffer, copied in (to_device) or out. */
int
refnic_admin_exec_buf(struct refnic_adapter *ad, struct refnic_admin_cmd *cmd,
		      void *data, uint32_t len, bool to_device)
{
	struct refnic_admin *aq = &ad->admin;
	int ret;

	if (len > REFNIC_ADMIN_BUF_SIZE)
		return -EINVAL;
	pthread_mutex_lock(&aq->lock);
	if (to_device)
		memcpy(aq->buf, data, len);
	else
		memset(aq->buf, 0, len);
	cmd->buf.iova = aq->buf_iova;
	cmd->buf.len = len;
	ret = admin_exec_locked(ad, cmd, NULL);
	if (ret == 0 && !to_device)
		memcpy(data, aq->buf, len);
	pthread_mutex_unlock(&aq->lock);
	return ret;
}

static int
hw_stats_fetch(struct refnic_adapter *ad, bool baseline)
{
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_STATS_GET };
	struct refnic_hw_stats s;
	int ret;

	/* A device without (caps_off=stats_dma): the port counts by itself. */
	if (!refnic_has_hw_stats(ad))
		return -ENOTSUP;
	ret = refnic_admin_exec_buf(ad, &cmd, &s, sizeof(s), false);

	if (ret == 0)
		ret = refnic_stats_check(ad, &s, baseline ? NULL : &ad->hw_stats_base);
	if (ret == 0)
		ad->hw_stats = s;
	return ret;
}

/* The device's counters into ad->hw_stats, if they pass the checks. */
int
refnic_fetch_hw_stats(struct refnic_adapter *ad)
{
	return hw_stats_fetch(ad, false);
}

/* The same, for a new baseline: not checked against the copy before. */
int
refnic_fetch_hw_stats_baseline(struct refnic_adapter *ad)
{
	return hw_stats_fetch(ad, true);
}

/*
 * The admin and reset counters change under the admin lock, in whichever
 * thread runs a command or a recovery's reset (the recovery alarm,
 * telemetry, stats): read and clear them so.
 */
void
refnic_admin_stats_read(struct refnic_adapter *ad, struct refnic_admin_stats *admin,
			struct refnic_admin_stats *reset)
{
	pthread_mutex_lock(&ad->admin.lock);
	*admin = ad->admin.stats;
	*reset = ad->reset_stats;
	pthread_mutex_unlock(&ad->admin.lock);
}

void
refnic_admin_stats_clear(struct refnic_adapter *ad)
{
	pthread_mutex_lock(&ad->admin.lock);
	memset(&ad->admin.stats, 0, sizeof(ad->admin.stats));
	memset(&ad->reset_stats, 0, sizeof(ad->reset_stats));
	pthread_mutex_unlock(&ad->admin.lock);
}
