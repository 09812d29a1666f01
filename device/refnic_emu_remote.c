/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Stores from other processes (DPDK multi-process).
 *
 * The device lives in the primary process: its state, its engines, its
 * code. A secondary process that drives one of its ports maps the BAR,
 * which is a memzone for that reason, and stores into it as the primary
 * does; but it cannot run the store's trap, whose code and state are the
 * primary's. Its trap forwards the store instead: offset and value into a
 * mailbox ring that sits in the same memzone, then a kick of the first
 * engine, which replays the store through the trap as if it had been made
 * in the primary. That is a hypervisor forwarding a trapped MMIO store to
 * the device model's process (KVM's ioeventfd to QEMU): the store lands at
 * once, its effect follows on the device's own thread.
 *
 * Except for the data path, where that thread is the one that would starve
 * when lcores poll every core: the device's state is in DPDK's memory,
 * which a secondary maps at the same addresses, so on a port wired in the
 * primary (loopback, NAME) with inline execution a secondary's TAIL and
 * RERING stores run their trap right there, as the primary's do: its TX
 * doorbell delivers into the peer's ring. One secondary thread at a time
 * (the device's secondary.lock), counting into the device's last shard; what
 * it raises (the primary's eventfds) and kicks goes through the mailbox and
 * the kick eventfd. Such a secondary killed mid-burst may leave a queue
 * lock held, as it may leave a mempool cache half-updated: DPDK's
 * multi-process model does not survive that either.
 *
 * The clock block (REFNIC_REG_CLOCK_*, PTP latches) is served here too, on
 * the storing thread: the clock's state sits in the memzone after the
 * mailbox (refnic_emu_clock.c), and a latch must hold the time of its store,
 * not of the replay.
 *
 * The secondary learns the memzone's name and gets the engine's kick
 * eventfd from the primary over EAL's multi-process channel, the one place
 * an fd can cross. It writes that eventfd only when the engine asked for it
 * (a flag in the memzone, raised before the engine sleeps, as virtio's
 * event suppression): an engine that polls finds the store by itself, and a
 * doorbell costs the secondary no system call. Interrupt vectors stay with
 * the primary: a secondary port has none. The primary must outlive its
 * secondaries, as with every DPDK device.
 */

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_memory.h>
#include <rte_memzone.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>
#include <rte_string_fns.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_clock.h"
#include "refnic_emu_engine.h"
#include "refnic_emu_intr.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_profile.h"
#include "refnic_emu_remote.h"
#include "refnic_emu_trap.h"

#define REMOTE_MP_ACTION	"refnic_emu_attach"
#define REMOTE_MAILBOX_SIZE	1024	/* stores in flight from all secondaries */
#define REMOTE_REPLAY_BURST	32
/* A full mailbox means the engine is behind; one that stays full this long
 * means the primary is gone: the store is lost, as to a device that died. */
#define REMOTE_FULL_TIMEOUT_MS	100

struct remote_request {
	char name[REFNIC_EMU_NAME_LEN];
};

struct remote_reply {
	int32_t status;			/* 0 or a negative errno */
	char mz_name[RTE_MEMZONE_NAMESIZE];
	uint64_t emu;			/* the device, if its doorbells may run inline */
};

/* A mailbox entry that is not a store: raise vector (off & 0xffff). */
#define REMOTE_RAISE			0xffff0000u

/* After the mailbox in the BAR's memzone: what both processes share of engine 0. */
struct remote_shared {
	/* Nonzero: engine 0 sleeps, or may (it raises this before it looks at
	 * the mailbox a last time): stores kick it. Zero: it polls. */
	uint32_t kick_wanted;
	uint64_t kicks;			/* the eventfd writes that did */
	/* The device's cost of a BAR store (its profile's): a secondary's
	 * store pays it on the secondary's CPU, as one in the primary does. */
	uint64_t store_cost_tsc;
} __rte_cache_aligned;

/* A secondary's trap context: where its stores go and whom to kick. */
struct refnic_emu_remote {
	struct refnic_emu *emu;		/* the primary's, for inline doorbells; or NULL */
	struct rte_ring *mailbox;
	struct remote_shared *shared;
	struct refnic_emu_clock *clock;	/* the device's, latched here */
	uint8_t *bar0;
	int kick_fd;
	uint64_t lost;			/* stores dropped: the primary did not drain */
	uint64_t store_cost_tsc;	/* the shared one, read once */
};

static ssize_t
mailbox_size(void)
{
	return rte_ring_get_memsize_elem(sizeof(uint64_t), REMOTE_MAILBOX_SIZE);
}

static struct rte_ring *
bar_mailbox(const struct rte_memzone *mz)
{
	return (struct rte_ring *)((uint8_t *)mz->addr + REFNIC_BAR0_SIZE);
}

static struct remote_shared *
bar_shared(const struct rte_memzone *mz)
{
	return (struct remote_shared *)((uint8_t *)mz->addr + REFNIC_BAR0_SIZE +
					mailbox_size());
}

/* After remote_shared: the device clock, which secondaries latch themselves. */
static struct refnic_emu_clock *
bar_clock(const struct rte_memzone *mz)
{
	return (struct refnic_emu_clock *)(bar_shared(mz) + 1);
}

size_t
refnic_emu_bar_clock_offset(void)
{
	return REFNIC_BAR0_SIZE + mailbox_size() + sizeof(struct remote_shared);
}

int
refnic_emu_bar_alloc(struct refnic_emu *emu)
{
	static uint32_t seq;
	char name[RTE_MEMZONE_NAMESIZE];
	ssize_t ring_size = mailbox_size();
	const struct rte_memzone *mz;

	if (ring_size < 0)
		return (int)ring_size;
	snprintf(name, sizeof(name), "refnic_bar_%u",
		 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	mz = rte_memzone_reserve_aligned(name, REFNIC_BAR0_SIZE + ring_size +
					 sizeof(struct remote_shared) +
					 sizeof(struct refnic_emu_clock), SOCKET_ID_ANY, 0, 4096);
	if (mz == NULL)
		return -rte_errno;
	memset(mz->addr, 0, mz->len);
	/* rte_ring_init() is the pointer-sized case of the elem API: 8 bytes. */
	RTE_BUILD_BUG_ON(sizeof(void *) != sizeof(uint64_t));
	if (rte_ring_init(bar_mailbox(mz), name, REMOTE_MAILBOX_SIZE, RING_F_SC_DEQ) != 0) {
		rte_memzone_free(mz);
		return -EINVAL;
	}
	/* Until engine 0 says it polls, every store kicks it: it may be
	 * asleep when the first secondary attaches. */
	bar_shared(mz)->kick_wanted = 1;
	emu->bar_mz = mz;
	emu->bar0 = mz->addr;
	emu->clock = bar_clock(mz);
	refnic_emu_clock_init(emu->clock, emu->profile->clock_skew_ppb);
	return 0;
}

void
refnic_emu_bar_free(struct refnic_emu *emu)
{
	rte_memzone_free(emu->bar_mz);
	emu->bar_mz = NULL;
	emu->bar0 = NULL;
	emu->clock = NULL;
}

/* Engine 0: replay what secondaries stored. Returns the stores replayed. */
unsigned int
refnic_emu_remote_drain(struct refnic_emu *emu)
{
	struct rte_ring *mailbox = bar_mailbox(emu->bar_mz);
	struct remote_shared *shared = bar_shared(emu->bar_mz);
	uint64_t st[REMOTE_REPLAY_BURST];
	unsigned int n, i, total = 0;
	uint32_t off;

	if (likely(!__atomic_load_n(&emu->secondary.attached, __ATOMIC_ACQUIRE)))
		return 0;
	/* Awake, so no kicks: it says otherwise before it dozes again. */
	if (__atomic_load_n(&shared->kick_wanted, __ATOMIC_RELAXED) != 0)
		__atomic_store_n(&shared->kick_wanted, 0, __ATOMIC_RELAXED);
	/* At most a mailbox's worth a pass: secondaries that keep storing must
	 * not hold engine 0 from the other devices and the control path. */
	do {
		n = rte_ring_sc_dequeue_burst_elem(mailbox, st, sizeof(st[0]), RTE_DIM(st),
						   NULL);
		for (i = 0; i < n; i++) {
			/* Another process's word: a register of the BAR, a
			 * vector to raise, or nothing. */
			off = st[i] >> 32;
			if (off < REFNIC_BAR0_SIZE && off % 4 == 0 &&
			    (off < REFNIC_PUSH_BASE || off >= REFNIC_PUSH_END))
				refnic_emu_bar_replay(emu, off, (uint32_t)st[i]);
			else if ((off & REMOTE_RAISE) == REMOTE_RAISE &&
				 (off & 0xffff) < emu->nb_vectors)
				eventfd_write(emu->vector_fd[off & 0xffff], 1);
		}
		total += n;
	} while (n == RTE_DIM(st) && total < REMOTE_MAILBOX_SIZE);
	/* Only engine 0 writes it; telemetry reads it whole. */
	if (total != 0)
		__atomic_store_n(&emu->secondary.stores, emu->secondary.stores + total,
				 __ATOMIC_RELAXED);
	return total;
}

/* Secondaries' stores replayed, and the engine kicks they took. */
void
refnic_emu_remote_counts(const struct refnic_emu *emu, uint64_t *stores, uint64_t *kicks)
{
	*stores = __atomic_load_n(&emu->secondary.stores, __ATOMIC_RELAXED);
	*kicks = __atomic_load_n(&bar_shared(emu->bar_mz)->kicks, __ATOMIC_RELAXED);
}

/*
 * Engine 0 is about to sleep (true) or has woken (false). Before it sleeps
 * it raises kick_wanted and then asks refnic_emu_remote_pending(): a store
 * enqueued before the flag was seen raised is found there, one after kicks.
 */
void
refnic_emu_remote_dozing(struct refnic_emu *emu, bool dozing)
{
	if (!__atomic_load_n(&emu->secondary.attached, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&bar_shared(emu->bar_mz)->kick_wanted, dozing, __ATOMIC_SEQ_CST);
}

bool
refnic_emu_remote_pending(const struct refnic_emu *emu)
{
	if (!__atomic_load_n(&emu->secondary.attached, __ATOMIC_ACQUIRE))
		return false;
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);	/* the flag's store first */
	return !rte_ring_empty(bar_mailbox(emu->bar_mz));
}

/* In the primary, on EAL's multi-process thread: a secondary attaches. */
static int
remote_attach_action(const struct rte_mp_msg *msg, const void *peer)
{
	struct rte_mp_msg out;
	struct remote_reply *rep = (struct remote_reply *)out.param;
	char name[REFNIC_EMU_NAME_LEN];
	struct refnic_emu *emu;
	int ret;

	memset(&out, 0, sizeof(out));
	strlcpy(out.name, msg->name, sizeof(out.name));
	out.len_param = sizeof(*rep);
	if (msg->len_param != sizeof(struct remote_request)) {
		rep->status = -EINVAL;
		return rte_mp_reply(&out, peer);
	}
	strlcpy(name, ((const struct remote_request *)msg->param)->name, sizeof(name));
	refnic_emu_list_lock();
	emu = refnic_emu_lookup(name);
	if (emu == NULL) {
		rep->status = -ENODEV;
	} else {
		strlcpy(rep->mz_name, emu->bar_mz->name, sizeof(rep->mz_name));
		/* Inline on a port wired here: the secondary reaches the peer
		 * too. A fuzzer's hook is this process's code only. */
		if (emu->inline_exec && refnic_emu_cable_in_process(emu) &&
		    emu->corrupt.tamper == NULL)
			rep->emu = (uintptr_t)emu;
		__atomic_store_n(&bar_shared(emu->bar_mz)->store_cost_tsc,
				 emu->link->trap_cost_tsc, __ATOMIC_RELAXED);
		out.num_fds = 1;
		out.fds[0] = emu->link->kick_fd[0];
		__atomic_store_n(&emu->secondary.attached, true, __ATOMIC_RELEASE);
	}
	/* Sent under the lock: the engine's fd stays open until it is sent. */
	ret = rte_mp_reply(&out, peer);
	refnic_emu_list_unlock();
	if (emu != NULL)
		EMU_LOG(INFO, "%s: a secondary process attached", name);
	return ret;
}

void
refnic_emu_remote_listen(void)
{
	static bool listening;

	if (listening || rte_eal_process_type() != RTE_PROC_PRIMARY)
		return;
	/* ENOTSUP: no multi-process here (--no-shconf, --in-memory). EEXIST:
	 * a second copy of this code (a test binary and the PMD) got there. */
	if (rte_mp_action_register(REMOTE_MP_ACTION, remote_attach_action) == 0 ||
	    rte_errno == EEXIST || rte_errno == ENOTSUP)
		listening = true;
	else
		EMU_LOG(WARNING, "secondary processes cannot attach: %s",
			rte_strerror(rte_errno));
}

/* The first attachment's kick of engine 0 (one engine 0 for every device). */
static int remote_kick_fd = -1;

void
refnic_emu_remote_kick(void)
{
	if (remote_kick_fd >= 0)
		eventfd_write(remote_kick_fd, 1);
}

static void
mailbox_put(struct rte_ring *mailbox, uint64_t st, int kick_fd, uint64_t *lost)
{
	uint64_t give_up = 0;

	while (rte_ring_mp_enqueue_elem(mailbox, &st, sizeof(st)) != 0) {
		if (give_up == 0) {
			give_up = rte_get_timer_cycles() +
				  rte_get_timer_hz() * REMOTE_FULL_TIMEOUT_MS / 1000;
		} else if (rte_get_timer_cycles() > give_up) {
			if ((*lost)++ == 0)
				EMU_LOG(ERR, "the primary process does not take stores any more: "
					"lost (is it gone?)");
			return;
		}
		eventfd_write(kick_fd, 1);
		sched_yield();
	}
}

void
refnic_emu_remote_raise(struct refnic_emu *emu, uint16_t v)
{
	static uint64_t lost;

	mailbox_put(bar_mailbox(emu->bar_mz), (uint64_t)(REMOTE_RAISE | v) << 32,
		    remote_kick_fd, &lost);
	refnic_emu_remote_kick();
}

/* A queue's TAIL or RERING: the doorbells whose work runs inline. */
static bool
remote_store_inline(const struct refnic_emu *emu, uint32_t off)
{
	uint32_t reg = off & (REFNIC_REG_Q_STRIDE - 1), nb = emu->params.max_queues;

	if (reg != REFNIC_Q_TAIL && reg != REFNIC_Q_RERING)
		return false;
	return (off >= REFNIC_REG_TXQ(0) && off < REFNIC_REG_TXQ(nb)) ||
	       (off >= REFNIC_REG_RXQ(0) && off < REFNIC_REG_RXQ(nb));
}

static void
remote_trap(void *ctx, uint32_t off, uint32_t val)
{
	struct refnic_emu_remote *r = ctx;
	uint64_t st = (uint64_t)off << 32 | val;

	/* The clock is read now, not when engine 0 gets round to it. */
	if (off >= REFNIC_REG_CLOCK_BASE && off < REFNIC_REG_CLOCK_END) {
		refnic_emu_clock_store(r->clock, r->bar0, off);
		return;
	}
	if (r->emu != NULL && remote_store_inline(r->emu, off)) {
		rte_spinlock_lock(&r->emu->secondary.lock);
		refnic_emu_shard_id = REFNIC_EMU_REMOTE_SHARD;
		refnic_emu_bar_write(r->emu, off, val);
		refnic_emu_shard_id = 0;
		__atomic_store_n(&r->emu->secondary.inlined, r->emu->secondary.inlined + 1,
				 __ATOMIC_RELAXED);
		rte_spinlock_unlock(&r->emu->secondary.lock);
		return;
	}
	mailbox_put(r->mailbox, st, r->kick_fd, &r->lost);
	/* Dekker with engine 0: the entry is in, then the flag is read. */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&r->shared->kick_wanted, __ATOMIC_RELAXED) != 0) {
		eventfd_write(r->kick_fd, 1);
		__atomic_fetch_add(&r->shared->kicks, 1, __ATOMIC_RELAXED);
	}
	if (r->store_cost_tsc != 0)
		refnic_emu_store_charge(r->store_cost_tsc);
}

int
refnic_emu_remote_attach(const char *name, struct refnic_emu_resources *res)
{
	struct timespec timeout = { .tv_sec = 5 };
	struct rte_mp_reply reply = { 0 };
	const struct remote_reply *rep;
	const struct rte_memzone *mz;
	struct refnic_emu_remote *r;
	struct rte_mp_msg req;
	struct rte_mp_msg *m;
	uint16_t v;
	int ret;

	memset(&req, 0, sizeof(req));
	strlcpy(req.name, REMOTE_MP_ACTION, sizeof(req.name));
	req.len_param = sizeof(struct remote_request);
	strlcpy(((struct remote_request *)req.param)->name, name, REFNIC_EMU_NAME_LEN);
	if (rte_mp_request_sync(&req, &reply, &timeout) != 0 || reply.nb_received != 1) {
		EMU_LOG(ERR, "%s: the primary process does not answer (%s)", name,
			rte_strerror(rte_errno));
		free(reply.msgs);
		return -ENODEV;
	}
	m = &reply.msgs[0];
	rep = (const struct remote_reply *)m->param;
	ret = m->len_param == sizeof(*rep) ? rep->status : -EPROTO;
	if (ret == 0 && m->num_fds != 1)
		ret = -EPROTO;
	mz = ret == 0 ? rte_memzone_lookup(rep->mz_name) : NULL;
	if (ret == 0 && (mz == NULL || mz->len < REFNIC_BAR0_SIZE + mailbox_size() +
					 sizeof(struct remote_shared) +
					 sizeof(struct refnic_emu_clock)))
		ret = -ENODEV;
	if (ret != 0) {
		EMU_LOG(ERR, "%s: cannot attach to the primary's device: %s", name,
			rte_strerror(-ret));
		goto out;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	r->mailbox = bar_mailbox(mz);
	r->shared = bar_shared(mz);
	r->clock = bar_clock(mz);
	r->bar0 = mz->addr;
	/* Where the primary's device is, if it is what it says it is. */
	r->emu = (struct refnic_emu *)(uintptr_t)rep->emu;
	if (r->emu != NULL && (rte_mem_virt2memseg_list(r->emu) == NULL ||
			       strncmp(r->emu->name, name, sizeof(r->emu->name)) != 0))
		r->emu = NULL;
	if (remote_kick_fd < 0)
		remote_kick_fd = dup(m->fds[0]);
	r->store_cost_tsc = __atomic_load_n(&r->shared->store_cost_tsc, __ATOMIC_RELAXED);
	r->kick_fd = m->fds[0];
	res->bar0 = mz->addr;
	res->trap = remote_trap;
	res->trap_ctx = r;
	res->nb_vectors = 0;
	for (v = 0; v < REFNIC_MAX_VECTORS; v++)
		res->vector_fd[v] = -1;
	free(reply.msgs);
	return 0;
out:
	for (v = 0; v < m->num_fds; v++)
		close(m->fds[v]);
	free(reply.msgs);
	return ret;
}

void
refnic_emu_remote_detach(void *trap_ctx)
{
	struct refnic_emu_remote *r = trap_ctx;

	if (r == NULL)
		return;
	close(r->kick_fd);
	free(r);
}
