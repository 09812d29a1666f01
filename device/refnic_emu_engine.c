/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The engines: threads of the process that serve every refnic device,
 * round-robin over their admin and data queues, as a NIC's processing
 * pipeline would. The first engine serves everything; a device with
 * engines=N has its queue pair q served by engine q % N instead. Under
 * load an engine polls doorbells. With nothing to do it spins a little,
 * then dozes: it sets its bit in the links of the devices it serves and
 * waits on its kick eventfd, which the emulated BAR writes when a trapped
 * store lands (the ioeventfd model), on the fds of cables that bring frames
 * from outside the process (shm, TAP; the first engine only), or until the
 * next timed event (an admin command's or a reset's completion time) is due.
 */

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_engine.h"
#include "refnic_emu_intr.h"
#include "refnic_emu_link.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_remote.h"
#include "refnic_emu_trap.h"

/*
 * Idle policy. Waking a dozing thread on another CPU costs 100-200 us on a
 * VM (measured with devtools/bench.sh init), tens of microseconds on bare
 * metal: more than most admin commands take. So an engine with a CPU of its
 * own keeps polling for a while after its last work, as a busy NIC would,
 * and never dozes for an event that is due sooner than a wake-up would cost.
 *
 * An engine that shares its CPU with an lcore (every CPU is an lcore's) must
 * not take that CPU from the thread it serves, and must not give it away
 * for a scheduler slice either (a yield to a thread that spins comes back
 * after milliseconds): it dozes as soon as it has no work, on a timer for
 * any wait of 2 us or more. Its wake-ups are local and cheap, and a kick or
 * a timer wake-up preempts a thread that spins, so progress never waits
 * for the scheduler's tick.
 */
#define ENGINE_IDLE_POLL_US	2000	/* keep polling this long after work */
#define ENGINE_SHARED_IDLE_POLL_US 0	/* the same, sharing a CPU: a main
					 * lcore may spin (rte_eal_wait_lcore)
					 * and take back every yielded slice */
#define ENGINE_HEADS_SETTLE_US	100	/* HEAD registers written once idle this long */
#define ENGINE_MIN_DOZE_US	300	/* shorter waits are polled */
#define ENGINE_SHARED_MIN_DOZE_US 2	/* the same, sharing a CPU */
#define ENGINE_MAX_DOZE_US	100000	/* re-check state at least this often */
#define ENGINE_TIMER_SLACK_NS	1000	/* wake on time for microsecond events */
#define ENGINE_CONTENTION_MS	100	/* preemptions counted over this long */
#define ENGINE_CONTENDED_PREEMPTIONS 4	/* this many: another thread wants the CPU */
#define ENGINE_MAX_CABLE_FDS	32	/* cables from outside it sleeps on */

struct refnic_emu_list refnic_emu_devices = TAILQ_HEAD_INITIALIZER(refnic_emu_devices);

/*
 * One engine thread. Its lock is held while it works, dropped while it
 * dozes on its own kick eventfd, which the emulated BAR writes when the
 * engine's bit is set in a link's engine_dozing.
 */
struct engine {
	pthread_mutex_t mutex;
	unsigned int lock_waiters;	/* threads waiting for its lock */
	int kick_fd;
	pthread_t thread;
} __rte_cache_aligned;

static struct engine engines[REFNIC_EMU_MAX_ENGINES] = {
	[0 ... REFNIC_EMU_MAX_ENGINES - 1] = { .mutex = PTHREAD_MUTEX_INITIALIZER, .kick_fd = -1 },
};
/* Control threads, one at a time: held across an engine shutdown too. */
static pthread_mutex_t control_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned int nb_engines;		/* threads running */
/* No CPU is free of lcores. Set as each engine starts, read by running
 * engines meanwhile: atomic (ThreadSanitizer found the plain bool). */
static bool engines_share_cpu;

static inline bool
engines_share_cpu_get(void)
{
	return __atomic_load_n(&engines_share_cpu, __ATOMIC_RELAXED);
}

static inline void
engines_share_cpu_set(bool share)
{
	__atomic_store_n(&engines_share_cpu, share, __ATOMIC_RELAXED);
}

/*
 * A CPU no lcore of this process uses may be busy all the same: another
 * process's lcores poll it (two processes on a cable, each on its own
 * core). An engine that polls there takes that CPU from them a scheduler
 * slice at a time (milliseconds of stall). The scheduler says so: an engine
 * preempted again and again is not alone on its CPU, and from then on all
 * engines doze as soon as they have no work, as on a shared CPU.
 */
static void
engine_check_contention(uint64_t now, uint64_t *next_check, long *nivcsw)
{
	struct rusage ru;

	if (now < *next_check || engines_share_cpu_get() ||
	    getrusage(RUSAGE_THREAD, &ru) != 0)
		return;
	*next_check = now + ENGINE_CONTENTION_MS * rte_get_tsc_hz() / 1000;
	if (*nivcsw >= 0 && ru.ru_nivcsw - *nivcsw >= ENGINE_CONTENDED_PREEMPTIONS) {
		engines_share_cpu_set(true);
		EMU_LOG(INFO, "engine %u: preempted %ld times in %u ms: its CPU is another "
			"thread's too; engines doze as soon as they are idle",
			refnic_emu_engine_id, ru.ru_nivcsw - *nivcsw, ENGINE_CONTENTION_MS);
	}
	*nivcsw = ru.ru_nivcsw;
}

static unsigned int engine_users;	/* devices */
static bool engine_stop;

__thread unsigned int refnic_emu_engine_id __attribute__((tls_model("initial-exec")));
__thread bool refnic_emu_on_engine __attribute__((tls_model("initial-exec")));

_Static_assert(REFNIC_EMU_MAX_ENGINES <= REFNIC_EMU_LINK_MAX_ENGINES,
	       "every engine has a kick fd in the link");

/* Waiters announce themselves so that a busy engine lets them in. */
static void
engine_lock(unsigned int k)
{
	__atomic_fetch_add(&engines[k].lock_waiters, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&engines[k].mutex);
	__atomic_fetch_sub(&engines[k].lock_waiters, 1, __ATOMIC_RELAXED);
}

/* The waiter may share the engine's CPU: give it the CPU, not just the lock. */
static void
engine_yield_lock(unsigned int k)
{
	pthread_mutex_unlock(&engines[k].mutex);
	while (__atomic_load_n(&engines[k].lock_waiters, __ATOMIC_RELAXED) != 0)
		sched_yield();
	pthread_mutex_lock(&engines[k].mutex);
}

static void
engines_lock_all(void)
{
	unsigned int k;

	for (k = 0; k < REFNIC_EMU_MAX_ENGINES; k++)
		engine_lock(k);
}

static void
engines_unlock_all(void)
{
	unsigned int k = REFNIC_EMU_MAX_ENGINES;

	while (k-- > 0)
		pthread_mutex_unlock(&engines[k].mutex);
}

/*
 * Control threads hold every engine's lock, taken in order, then every
 * device's queues (inline traps run queue work too): nothing runs. All TX
 * locks first, then all RX locks: a trap holding its TX lock waits for the
 * peer device's RX lock, so device by device would deadlock with it
 * (bench.sh soak found it: a link flap against inline forwarding).
 */
void
refnic_emu_lock(void)
{
	struct refnic_emu *emu;

	pthread_mutex_lock(&control_mutex);
	engines_lock_all();
	TAILQ_FOREACH(emu, &refnic_emu_devices, next)
		refnic_emu_queues_lock_tx(emu);
	TAILQ_FOREACH(emu, &refnic_emu_devices, next)
		refnic_emu_rx_config_write_lock(emu);
	TAILQ_FOREACH(emu, &refnic_emu_devices, next)
		refnic_emu_queues_lock_rx(emu);
}

void
refnic_emu_unlock(void)
{
	struct refnic_emu *emu;

	TAILQ_FOREACH(emu, &refnic_emu_devices, next)
		refnic_emu_queues_unlock(emu);
	engines_unlock_all();
	pthread_mutex_unlock(&control_mutex);
	refnic_emu_intr_flush_deferred();	/* what the control call raised */
}

void
refnic_emu_list_lock(void)
{
	pthread_mutex_lock(&control_mutex);
}

void
refnic_emu_list_unlock(void)
{
	pthread_mutex_unlock(&control_mutex);
}

unsigned int
refnic_emu_engine_running(bool *share_cpu)
{
	*share_cpu = engines_share_cpu_get();
	return nb_engines;
}

void
refnic_emu_engine_name(unsigned int k, char *buf, size_t len)
{
	snprintf(buf, len, k == 0 ? "refnic-engine" : "refnic-engine%u", k);
}

/*
 * A trapped store runs some of the first engine's control work itself
 * (admin commands, refnic_emu_admin_trap()): it takes that engine's lock,
 * which a busy engine gives up after its pass, and is the first engine
 * until it lets go. Not on an engine (it holds its own lock already).
 */
static __thread bool first_engine_borrowed __attribute__((tls_model("initial-exec")));

bool
refnic_emu_engine_borrow_first(void)
{
	if (refnic_emu_on_engine)
		return false;
	engine_lock(0);
	first_engine_borrowed = true;
	return true;
}

void
refnic_emu_engine_return_first(void)
{
	first_engine_borrowed = false;
	pthread_mutex_unlock(&engines[0].mutex);
}

/*
 * The first engine changes what the others read (queues, device state)
 * only with their locks held too. It already holds its own, and the others
 * never wait for it, so the order is deadlock-free. Control threads hold
 * them all already.
 */
void
refnic_emu_engine_lock_others(struct refnic_emu *emu)
{
	unsigned int k;

	if (!refnic_emu_on_engine && !first_engine_borrowed)
		return;
	RTE_VERIFY(refnic_emu_engine_id == 0);
	for (k = 1; k < nb_engines; k++)
		engine_lock(k);
	refnic_emu_queues_lock(emu);
}

void
refnic_emu_engine_unlock_others(struct refnic_emu *emu)
{
	unsigned int k;

	if (!refnic_emu_on_engine && !first_engine_borrowed)
		return;
	refnic_emu_queues_unlock(emu);
	for (k = nb_engines; k-- > 1;)
		pthread_mutex_unlock(&engines[k].mutex);
}

/* Engine k serves the device: all of them serve control, some its queues. */
static inline bool
engine_serves(unsigned int k, const struct refnic_emu *emu)
{
	return k < emu->params.engines;
}

/* Any trapped write since engine k's last pass, or for engine 0 a secondary
 * process's store in a mailbox? Called with its lock held. */
static bool
engine_writes_pending(unsigned int k)
{
	struct refnic_emu *emu;

	TAILQ_FOREACH(emu, &refnic_emu_devices, next)
		if (engine_serves(k, emu) &&
		    (__atomic_load_n(&emu->link->write_seq, __ATOMIC_SEQ_CST) !=
		     emu->shard[k].write_seq_seen ||
		     (k == 0 && refnic_emu_remote_pending(emu))))
			return true;
	return false;
}

/* Engine k's bit in the engine_dozing of the links it serves: any bit set,
 * the BAR accessor kicks that engine. */
static void
engine_set_dozing(unsigned int k, bool dozing)
{
	struct refnic_emu *emu;

	TAILQ_FOREACH(emu, &refnic_emu_devices, next) {
		if (!engine_serves(k, emu))
			continue;
		if (dozing)
			__atomic_fetch_or(&emu->link->engine_dozing, 1u << k, __ATOMIC_SEQ_CST);
		else
			__atomic_fetch_and(&emu->link->engine_dozing, ~(1u << k), __ATOMIC_SEQ_CST);
		/* Secondary processes' stores reach engine 0 by their own mailbox. */
		if (k == 0)
			refnic_emu_remote_dozing(emu, dozing);
	}
}

/*
 * A new device's link: where to kick each engine. No engine has flagged it
 * as dozing yet; the caller kicks them all after adding the device, so a
 * dozing engine wakes and looks at it before it sleeps again.
 */
void
refnic_emu_engine_link_init(struct refnic_emu *emu)
{
	unsigned int k;

	for (k = 0; k < REFNIC_EMU_LINK_MAX_ENGINES; k++)
		emu->link->kick_fd[k] = k < nb_engines ? engines[k].kick_fd : -1;
	emu->link->engine_dozing = 0;
}

void
refnic_emu_engine_kick_all(void)
{
	unsigned int k;

	for (k = 0; k < nb_engines; k++)
		eventfd_write(engines[k].kick_fd, 1);
}

/*
 * Cables that bring frames from outside (another process, the kernel) wake
 * the engine through an fd of theirs. Returns how many fds were added after
 * pfd[0], or -EAGAIN if a cable already has frames waiting.
 */
static int
engine_cable_fds(struct pollfd *pfd, unsigned int max, uint64_t *wait_us)
{
	struct refnic_emu *emu;
	unsigned int n = 0;
	int fd, ret = 0;

	TAILQ_FOREACH(emu, &refnic_emu_devices, next) {
		fd = refnic_emu_cable_doze_prepare(emu);
		if (fd == -EAGAIN)
			ret = -EAGAIN;
		if (fd < 0)
			continue;
		if (n == max) {
			/* No room to wait on it: look again soon instead. */
			*wait_us = RTE_MIN(*wait_us, (uint64_t)ENGINE_MIN_DOZE_US);
			continue;
		}
		pfd[n].fd = fd;
		pfd[n].events = POLLIN;
		n++;
	}
	return ret != 0 ? ret : (int)n;
}

static void
engine_cable_doze_end(void)
{
	struct refnic_emu *emu;

	TAILQ_FOREACH(emu, &refnic_emu_devices, next)
		refnic_emu_cable_doze_end(emu);
}

/*
 * Engine k sleeps until kicked or until next_due_tsc; called with its lock
 * held. Returns false if it slept its whole time, with nothing to wake it.
 */
static bool
engine_doze(unsigned int k, uint64_t now, uint64_t next_due_tsc)
{
	uint64_t wait_us = ENGINE_MAX_DOZE_US;
	struct pollfd pfd[1 + ENGINE_MAX_CABLE_FDS] = {
		{ .fd = engines[k].kick_fd, .events = POLLIN },
	};
	bool woken = true;
	struct timespec ts;
	eventfd_t drain;
	int nb_cable_fds = 0;

	if (next_due_tsc != UINT64_MAX) {
		if (next_due_tsc <= now)
			return true;
		wait_us = RTE_MIN(wait_us,
				  (next_due_tsc - now) * 1000000 / rte_get_tsc_hz());
		if (wait_us < (engines_share_cpu_get() ? ENGINE_SHARED_MIN_DOZE_US :
						   ENGINE_MIN_DOZE_US))
			return true;
	}
	/* Dekker with the BAR accessor: it bumps write_seq then reads dozing. */
	engine_set_dozing(k, true);
	/* Cables are served by the first engine. */
	if (k == 0)
		nb_cable_fds = engine_cable_fds(&pfd[1], ENGINE_MAX_CABLE_FDS, &wait_us);
	if (nb_cable_fds >= 0 && !engine_writes_pending(k)) {
		ts.tv_sec = wait_us / 1000000;
		ts.tv_nsec = (wait_us % 1000000) * 1000;
		pthread_mutex_unlock(&engines[k].mutex);
		woken = ppoll(pfd, 1 + nb_cable_fds, &ts, NULL) != 0;
		if (woken && (pfd[0].revents & POLLIN))
			eventfd_read(engines[k].kick_fd, &drain);
		pthread_mutex_lock(&engines[k].mutex);
	}
	if (k == 0)
		engine_cable_doze_end();
	engine_set_dozing(k, false);
	return woken;
}

static void *
engine_main(void *arg)
{
	const uint64_t us_tsc = rte_get_tsc_hz() / 1000000;
	uint64_t settle_tsc = ENGINE_HEADS_SETTLE_US * us_tsc;
	uint64_t last_work = rte_get_tsc_cycles(), last_busy = last_work;
	uint64_t next_contention_check = 0;
	unsigned int k = (uintptr_t)arg;
	long nivcsw = -1;

	refnic_emu_engine_id = k;
	refnic_emu_shard_id = k;
	refnic_emu_on_engine = true;
	prctl(PR_SET_TIMERSLACK, ENGINE_TIMER_SLACK_NS);
	pthread_mutex_lock(&engines[k].mutex);
	while (!engine_stop) {
		uint64_t next_due_tsc = UINT64_MAX;
		uint64_t now = rte_get_tsc_cycles();
		/* Idle since the last work, dozes included (a doze that is
		 * woken restarts the polling window, not the idle time). */
		bool settled = now - last_busy >= settle_tsc;
		unsigned int work = 0;
		struct refnic_emu *emu;

		/* Each device's interrupts out before the next device's work. */
		TAILQ_FOREACH(emu, &refnic_emu_devices, next) {
			work += refnic_emu_service(emu, k, now, settled, &next_due_tsc);
			refnic_emu_intr_flush_deferred();
		}
		if (__atomic_load_n(&engines[k].lock_waiters, __ATOMIC_RELAXED) != 0)
			engine_yield_lock(k);
		if (work != 0) {
			last_work = now;
			last_busy = now;
			continue;
		}
		engine_check_contention(now, &next_contention_check, &nivcsw);
		if (now - last_work < (engines_share_cpu_get() ? ENGINE_SHARED_IDLE_POLL_US :
				       ENGINE_IDLE_POLL_US) * us_tsc) {
			rte_pause();
		} else if (engine_doze(k, now, next_due_tsc)) {
			/* Kicked, or due soon: work is coming, poll for it. A doze
			 * that ran out with nothing to do does not: polling then
			 * for ENGINE_IDLE_POLL_US after each ENGINE_MAX_DOZE_US
			 * took that share of a CPU an lcore may poll on (another
			 * process's), and slowed the round trips meanwhile. */
			last_work = rte_get_tsc_cycles();
		}
	}
	pthread_mutex_unlock(&engines[k].mutex);
	return NULL;
}

/*
 * The engine is the device: it must not share a core with a polling lcore.
 * It runs on the cores no lcore uses; if every core is an lcore, on the main
 * lcore's core, as DPDK's control threads do (a forwarding app's main lcore
 * mostly sleeps). Left to the scheduler, it lands next to a busy-polling
 * lcore at times, and forwarding rates swing tenfold.
 */
static void
engine_cpuset(cpu_set_t *set)
{
	long nb_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int lcore;
	long cpu;

	CPU_ZERO(set);
	for (cpu = 0; cpu < nb_cpus && cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, set);
	RTE_LCORE_FOREACH(lcore) {
		rte_cpuset_t used = rte_lcore_cpuset(lcore);

		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &used))
				CPU_CLR(cpu, set);
	}
	if (CPU_COUNT(set) == 0)
		engines_share_cpu_set(true);
	if (engines_share_cpu_get())
		*set = rte_lcore_cpuset(rte_get_main_lcore());
}

/* Start engine k on its cores; where the process may not use them
 * (a restricted cpuset), on the main lcore's. */
static int
engine_start(unsigned int k)
{
	rte_cpuset_t main_set = rte_lcore_cpuset(rte_get_main_lcore());
	pthread_t *thread = &engines[k].thread;
	void *arg = (void *)(uintptr_t)k;
	char name[16];
	pthread_attr_t attr;
	cpu_set_t set;
	int ret;

	engine_cpuset(&set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	ret = pthread_create(thread, &attr, engine_main, arg);
	if (ret == EINVAL) {
		engines_share_cpu_set(true);
		pthread_attr_setaffinity_np(&attr, sizeof(main_set), &main_set);
		ret = pthread_create(thread, &attr, engine_main, arg);
	}
	pthread_attr_destroy(&attr);
	if (ret != 0)
		return -ret;
	refnic_emu_engine_name(k, name, sizeof(name));
	pthread_setname_np(*thread, name);
	return 0;
}

/* Stop every engine; called with all locks held. The engines' own locks
 * are dropped while they wind down; the control lock is kept, so no other
 * control thread starts engines meanwhile. */
static void
engines_stop(void)
{
	unsigned int k;

	engine_stop = true;
	refnic_emu_engine_kick_all();
	engines_unlock_all();
	for (k = 0; k < nb_engines; k++)
		pthread_join(engines[k].thread, NULL);
	engines_lock_all();
	for (k = 0; k < nb_engines; k++) {
		close(engines[k].kick_fd);
		engines[k].kick_fd = -1;
	}
	nb_engines = 0;
	engines_share_cpu_set(false);	/* the next ones look afresh */
}

/* Start engine k, and tell the links there is one more engine to kick. */
static int
engine_add(unsigned int k)
{
	struct refnic_emu *emu;
	int ret;

	engines[k].kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (engines[k].kick_fd < 0)
		return -errno;
	/* Born on its cores: not a moment on the creator's, where it may spin. */
	ret = engine_start(k);
	if (ret != 0) {
		close(engines[k].kick_fd);
		engines[k].kick_fd = -1;
		return ret;
	}
	TAILQ_FOREACH(emu, &refnic_emu_devices, next)
		emu->link->kick_fd[k] = engines[k].kick_fd;
	return 0;
}

/* A device served by `want` engines arrives; called with all locks held. */
int
refnic_emu_engine_get(unsigned int want)
{
	int ret = 0;

	if (engine_users == 0)
		engine_stop = false;
	while (nb_engines < want) {
		ret = engine_add(nb_engines);
		if (ret != 0)
			break;
		nb_engines++;
	}
	if (ret != 0) {
		EMU_LOG(ERR, "cannot start device engine %u: %s", nb_engines, strerror(-ret));
		if (engine_users == 0)
			engines_stop();
		return ret;
	}
	engine_users++;
	return 0;
}

/* Called with all locks held; the engines go with the last device. */
void
refnic_emu_engine_put(void)
{
	if (--engine_users == 0)
		engines_stop();
}
