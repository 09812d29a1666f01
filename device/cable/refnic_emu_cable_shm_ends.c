/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * cable=shm:NAME - a cable between two processes (/dev/shm/refnic-cable-NAME).
 *
 * No thread carries frames: the sending thread's TX doorbell writes each
 * frame straight into the far end's RX buffers and completion rings,
 * which the far end's device published in the file (refnic_emu_cable_shm_port.c)
 * and whose memory it handed over the cable's socket
 * (refnic_emu_cable_shm_mem.c), as a vhost-user back end reaches a guest's
 * rings. The engines keep the control work: the far end's coming and
 * going, memory tables, the configuration published, queue errors found.
 *
 * The first two ports to name the cable take its two ends. Holding an end
 * is holding a lock on its byte of the file (an open file description
 * lock): the kernel drops it when the process goes, even killed, so the end
 * is free again and either side may restart. The other side sees its link
 * go down when the process goes, and down and up when a new one takes the
 * end; it stops delivering into the old one's memory before the new one
 * lays out its port (the end's delivering word). Everything in the file is
 * the other process's to scribble on: it is checked before it is used.
 * Its memory is the other process's to write, as a vhost-user back end
 * may write the guest's: the trust model of the cable.
 *
 * An engine that dozes is woken by a datagram on an abstract unix socket of
 * its end: link changes and memory tables come that way.
 *
 * The top of the cable's three files: its ops table names this file's ops
 * and those of refnic_emu_cable_shm_port.c, and it calls that file and
 * refnic_emu_cable_shm_mem.c; neither calls back into this one.
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_cable_kinds.h"
#include "refnic_emu_cable_services.h"
#include "refnic_emu_cable_shm_priv.h"

#define SHM_LIVENESS_US		20000		/* how often a silent peer is checked */
#define SHM_OPEN_TRIES		3		/* the file removed while we opened it */

/* The attach/detach lock of the cable's file; a signal does not skip it. */
static void
shm_flock(int fd, int op)
{
	while (flock(fd, op) != 0 && errno == EINTR)
		;
}

/* Take (F_WRLCK) or give back (F_UNLCK) end e: a lock on byte e. */
static int
end_lock(int fd, unsigned int e, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = e, .l_len = 1 };

	return fcntl(fd, F_OFD_SETLK, &fl) == 0 ? 0 : -errno;
}

/* The abstract socket address of an end: no file to clean up, freed by
 * the kernel when its process goes. */
static socklen_t
end_addr(const char *name, unsigned int end, struct sockaddr_un *addr)
{
	int n;

	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	n = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1,
		     "refnic-cable/%s/%u", name, end);
	return offsetof(struct sockaddr_un, sun_path) + 1 + n;
}

static bool
shm_link_up(const struct refnic_emu_cable *c, const struct refnic_emu *emu __rte_unused)
{
	const struct shm_cable *sc = (const struct shm_cable *)c;

	/*
	 * Up once this end can deliver: the far end is there and its memory
	 * is mapped (a link that came up before would drop what is sent on
	 * it; a view lost to a misbehaving far end is asked for again,
	 * mem_ask()). The far end's PHY too (LINK_SET), as it published it.
	 */
	return sc->peer_up && __atomic_load_n(&sc->view, __ATOMIC_ACQUIRE) != NULL &&
	       !__atomic_load_n(&sc->shm->unplugged, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&sc->peer_port->cfg.phy_down, __ATOMIC_ACQUIRE);
}

/*
 * Look at the far end: gone (its slot freed, or its process dead), or
 * replaced by a new process, which the port sees as its link going down,
 * then up again. Either way what we knew of it (its view, the table we
 * sent it) is for the process that went.
 */
static void
shm_check_peer(struct shm_cable *sc, struct refnic_emu *emu, uint64_t now)
{
	const struct shm_end *pe = &sc->shm->end[peer_of(sc)];
	int32_t pid = __atomic_load_n(&pe->pid, __ATOMIC_ACQUIRE);
	uint32_t gen = __atomic_load_n(&pe->gen, __ATOMIC_ACQUIRE);
	bool replaced = gen != sc->peer_gen;
	bool up = sc->peer_up;

	if (pid == 0) {
		up = false;
	} else if (replaced || now >= sc->next_liveness_tsc) {
		/* A killed process cannot say it left: is its end still held? */
		sc->next_liveness_tsc = now + refnic_emu_svc_us_to_tsc(SHM_LIVENESS_US);
		up = shm_end_held(sc->fd, peer_of(sc));
	}
	if (up == sc->peer_up && !replaced)
		return;
	if (replaced || !up)
		refnic_emu_cable_shm_view_retire(sc);
	rte_spinlock_lock(&sc->tx_lock);
	if (replaced && up && sc->peer_up) {
		/* Restarted between two looks: the port still sees it go. */
		sc->peer_up = false;
		refnic_emu_svc_update_link(emu);
	}
	sc->peer_gen = gen;
	sc->peer_up = up;
	rte_spinlock_unlock(&sc->tx_lock);
	/* Its HELLO comes by itself first: ask only if it does not. */
	sc->ask_tsc = now + refnic_emu_svc_us_to_tsc(SHM_ASK_US);
}

/*
 * A sender's pass holds the view, counted in our end's delivering word:
 * the far end, attaching anew, waits for it before it lays its port out,
 * and we wait for it before a view is freed.
 */
static struct refnic_emu *
shm_view_hold(struct shm_cable *sc)
{
	uint32_t *delivering = &sc->shm->end[sc->me].delivering;
	struct shm_view *sv;

	__atomic_fetch_add(delivering, 1, __ATOMIC_SEQ_CST);
	sv = __atomic_load_n(&sc->view, __ATOMIC_SEQ_CST);
	if (sv != NULL &&
	    __atomic_load_n(&sc->shm->end[peer_of(sc)].gen, __ATOMIC_SEQ_CST) == sv->peer_gen) {
		refnic_emu_cable_shm_view_config_sync(sv, &sc->peer_port->cfg);
		return &sv->emu;
	}
	__atomic_fetch_sub(delivering, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void
shm_tx(struct refnic_emu_cable *c, struct refnic_emu *emu, const struct refnic_frame *f,
       struct refnic_rx_batch *b)
{
	struct shm_cable *sc = (struct shm_cable *)c;

	if (b->view == NULL)
		b->view = shm_view_hold(sc);
	if (b->view == NULL || !shm_link_up(c, emu) || f->len > REFNIC_MAX_FRAME_LEN) {
		refnic_emu_svc_stats(emu)->cable_tx_dropped++;
		return;
	}
	/* The far end's device counts what it does not take. */
	refnic_emu_svc_rx_frame(b->view, f, b);
	/* Its lcore polls on another core: it need not wait for the pass. */
	refnic_emu_svc_rx_batch_publish(b);
}

static void
shm_tx_flush(struct refnic_emu_cable *c, struct refnic_emu *emu __rte_unused,
	     struct refnic_rx_batch *b)
{
	struct shm_cable *sc = (struct shm_cable *)c;

	refnic_emu_svc_rx_batch_end(b);
	if (b->view == NULL)
		return;
	/* The view's eventfds (its vectors, the far end's engine kick) close
	 * with it: signal them while it is held. They wake another process,
	 * which takes no lock this thread holds. */
	refnic_emu_svc_intr_flush();
	__atomic_fetch_sub(&sc->shm->end[sc->me].delivering, 1, __ATOMIC_RELEASE);
	b->view = NULL;
}

/* The engine's share: the far end, its messages, our published port. */
static unsigned int
shm_rx_service(struct refnic_emu_cable *c, struct refnic_emu *emu, uint64_t now)
{
	struct shm_cable *sc = (struct shm_cable *)c;
	unsigned int work;

	shm_check_peer(sc, emu, now);
	work = refnic_emu_cable_shm_mem_receive(sc);
	/* After the memory tables: a view mapped just now brings the link
	 * up. Also follows a cable pulled on the other side. */
	if (emu->link_up != shm_link_up(&sc->c, emu))
		refnic_emu_svc_update_link(emu);
	return work + refnic_emu_cable_shm_port_service(sc);
}

static void
shm_set_plugged(struct refnic_emu_cable *c, struct refnic_emu *emu, bool plugged)
{
	struct shm_cable *sc = (struct shm_cable *)c;

	__atomic_store_n(&sc->shm->unplugged, !plugged, __ATOMIC_RELEASE);
	refnic_emu_svc_update_link(emu);
	refnic_emu_cable_shm_kick_peer(sc);
}

static int
shm_doze_prepare(struct refnic_emu_cable *c)
{
	struct shm_cable *sc = (struct shm_cable *)c;

	__atomic_store_n(&sc->shm->end[sc->me].dozing, 1, __ATOMIC_SEQ_CST);
	return sc->sock;
}

static void
shm_doze_end(struct refnic_emu_cable *c)
{
	struct shm_cable *sc = (struct shm_cable *)c;

	/* What woke us is read by the next rx_service. */
	__atomic_store_n(&sc->shm->end[sc->me].dozing, 0, __ATOMIC_RELAXED);
}

static void
shm_close(struct shm_cable *sc)
{
	if (sc->shm != NULL)
		munmap(sc->shm, sizeof(*sc->shm));
	if (sc->sock >= 0)
		close(sc->sock);
	if (sc->fd >= 0)
		close(sc->fd);
	rte_free(sc->stats_base);
	rte_free(sc);
}

static void
shm_detach(struct refnic_emu_cable *c, struct refnic_emu *emu)
{
	struct shm_cable *sc = (struct shm_cable *)c;
	struct shm_end *mine = &sc->shm->end[sc->me];

	refnic_emu_cable_shm_view_retire(sc);
	if (sc->pending != NULL)
		refnic_emu_cable_shm_view_free(sc->pending);
	sc->pending = NULL;
	/* The port's vectors leave the file with it. */
	emu->rx_published = false;
	emu->intr_cable = NULL;
	emu->intr = &emu->intr_own;
	/* Its wake-up address goes first: a process taking the end next
	 * binds it. The peer is told after, from an unnamed socket. */
	close(sc->sock);
	sc->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	shm_flock(sc->fd, LOCK_EX);
	__atomic_store_n(&mine->pid, 0, __ATOMIC_RELEASE);
	end_lock(sc->fd, sc->me, F_UNLCK);
	/* The last one out removes the cable; a restarting side makes a new one. */
	if (!shm_end_held(sc->fd, peer_of(sc)))
		shm_unlink(sc->path);
	shm_flock(sc->fd, LOCK_UN);
	refnic_emu_cable_shm_kick_peer(sc);
	shm_close(sc);
}

static bool
shm_in_use(int fd)
{
	return shm_end_held(fd, 0) || shm_end_held(fd, 1);
}

static int
shm_other_layout(const struct shm_cable *sc, const char *emu_name)
{
	EMU_LOG(ERR, "%s: /dev/shm%s is in use with another layout "
		"(a different refnic version?)", emu_name, sc->path);
	return -EPROTO;
}

/*
 * Called with the file locked, before it is mapped: size it, and refuse a
 * cable a process with another layout uses (resizing it under that process
 * would kill it).
 */
static int
shm_size_check(struct shm_cable *sc, const char *emu_name)
{
	struct stat st;

	if (fstat(sc->fd, &st) != 0)
		return -errno;
	if ((uint64_t)st.st_size == sizeof(struct shm_layout))
		return 0;
	if (st.st_size != 0 && shm_in_use(sc->fd))
		return shm_other_layout(sc, emu_name);
	return ftruncate(sc->fd, sizeof(struct shm_layout)) == 0 ? 0 : -errno;
}

/* Called with the file locked: lay the cable out if nobody uses it. */
static int
shm_layout_check(struct shm_cable *sc, const char *emu_name)
{
	struct shm_layout *shm = sc->shm;

	if (shm->magic == SHM_MAGIC && shm->version == SHM_VERSION && shm->size == sizeof(*shm))
		return 0;
	if (shm->magic != 0 && shm_in_use(sc->fd))
		return shm_other_layout(sc, emu_name);
	memset(shm, 0, sizeof(*shm));
	shm->version = SHM_VERSION;
	shm->size = sizeof(*shm);
	__atomic_store_n(&shm->magic, SHM_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

/* Called with the file locked: take a free end (its byte lock). */
static int
shm_take_end(struct shm_cable *sc, const char *emu_name, const char *name)
{
	struct shm_layout *shm = sc->shm;
	struct shm_end *mine;
	unsigned int e;

	for (e = 0; e < 2; e++)
		if (end_lock(sc->fd, e, F_WRLCK) == 0)
			break;
	if (e == 2) {
		EMU_LOG(ERR, "%s: cable shm:%s already connects processes %d and %d",
			emu_name, name, shm->end[0].pid, shm->end[1].pid);
		return -EBUSY;
	}
	sc->me = e;
	mine = &shm->end[e];
	sc->my_gen = mine->gen + 1;
	sc->my_tag = shm_lock_tag(e, sc->my_gen);
	sc->port = &shm->port[e];
	sc->peer_port = &shm->port[peer_of(sc)];
	/* A cable pulled by processes that are all gone is plugged again. */
	if (!shm_end_held(sc->fd, peer_of(sc)))
		shm->unplugged = 0;
	mine->dozing = 0;
	mine->delivering = 0;	/* a previous holder's, killed mid-burst */
	/* Seen by the far end's senders before they look at our port. */
	__atomic_store_n(&mine->gen, sc->my_gen, __ATOMIC_SEQ_CST);
	__atomic_store_n(&mine->pid, (int32_t)getpid(), __ATOMIC_RELEASE);
	return 0;
}

static int
shm_open_socket(struct shm_cable *sc, const char *emu_name, const char *name)
{
	struct sockaddr_un addr;
	socklen_t len = end_addr(name, sc->me, &addr);

	sc->peer_addr_len = end_addr(name, peer_of(sc), &sc->peer_addr);
	sc->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (sc->sock < 0 || bind(sc->sock, (struct sockaddr *)&addr, len) != 0) {
		EMU_LOG(ERR, "%s: cable shm:%s: cannot open its wake-up socket: %s",
			emu_name, name, strerror(errno));
		return -errno;
	}
	return 0;
}

/*
 * Open the cable's file and lock it. The last process out may remove the
 * file between our open and our lock: then open again, a new one.
 */
static int
shm_open_locked(struct shm_cable *sc)
{
	struct stat st;
	int tries;

	for (tries = 0; tries < SHM_OPEN_TRIES; tries++) {
		sc->fd = shm_open(sc->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (sc->fd < 0)
			return -errno;
		shm_flock(sc->fd, LOCK_EX);
		if (fstat(sc->fd, &st) == 0 && st.st_nlink > 0)
			return 0;
		close(sc->fd);
		sc->fd = -1;
	}
	return -EAGAIN;
}

static int
shm_attach(struct refnic_emu *emu, const char *name, struct refnic_emu_cable **out)
{
	struct shm_cable *sc;
	int ret;

	/* In DPDK's memory, as the device that points to it (LeakSanitizer
	 * does not look there: a pointer from it would not count). */
	sc = rte_zmalloc("refnic_cable_shm", sizeof(*sc), 0);
	if (sc == NULL)
		return -ENOMEM;
	sc->emu = emu;
	strlcpy(sc->name, name, sizeof(sc->name));
	rte_spinlock_init(&sc->tx_lock);
	sc->fd = -1;
	sc->sock = -1;
	snprintf(sc->path, sizeof(sc->path), REFNIC_SHM_PATH_FMT, name);
	ret = shm_open_locked(sc);
	if (ret != 0) {
		EMU_LOG(ERR, "%s: cable shm:%s: cannot open /dev/shm%s: %s",
			emu->name, name, sc->path, strerror(-ret));
		goto fail;
	}
	ret = shm_size_check(sc, emu->name);
	if (ret == 0) {
		sc->shm = mmap(NULL, sizeof(*sc->shm), PROT_READ | PROT_WRITE, MAP_SHARED,
			       sc->fd, 0);
		if (sc->shm == MAP_FAILED) {
			sc->shm = NULL;
			ret = -errno;
		}
	}
	if (ret == 0)
		ret = shm_layout_check(sc, emu->name);
	if (ret == 0)
		ret = shm_take_end(sc, emu->name, name);
	shm_flock(sc->fd, LOCK_UN);
	if (ret != 0)
		goto fail;
	ret = shm_open_socket(sc, emu->name, name);
	if (ret == 0)
		ret = refnic_emu_cable_shm_port_init(sc);
	if (ret != 0) {
		__atomic_store_n(&sc->shm->end[sc->me].pid, 0, __ATOMIC_RELEASE);
		goto fail;
	}
	shm_check_peer(sc, emu, rte_get_tsc_cycles());
	/* The far end's engine may doze: tell it we are here. */
	refnic_emu_cable_shm_kick_peer(sc);
	EMU_LOG(INFO, "%s: cable shm:%s end %u (peer %s)", emu->name, name, sc->me,
		sc->peer_up ? "present" : "absent");
	*out = &sc->c;
	return 0;
fail:
	shm_close(sc);
	return ret;
}

/* What the device's queues, trap, interrupts and counters call of an shm
 * port and of the view of its far end: refnic_emu_cable_shm_port.c. */
const struct refnic_emu_cable_ops refnic_emu_cable_shm_ops = {
	.prefix = REFNIC_EMU_CABLE_SHM_PREFIX,
	.attach = shm_attach,
	.tx = shm_tx,
	.tx_flush = shm_tx_flush,
	.rx_service = shm_rx_service,
	.link_up = shm_link_up,
	.set_plugged = shm_set_plugged,
	.doze_prepare = shm_doze_prepare,
	.doze_end = shm_doze_end,
	.detach = shm_detach,
	.config_publish = refnic_emu_cable_shm_config_publish,
	.rxq_publish = refnic_emu_cable_shm_rxq_publish,
	.rx_tail = refnic_emu_cable_shm_rx_tail,
	.rx_published = refnic_emu_cable_shm_rx_published,
	.rx_head = refnic_emu_cable_shm_rx_head,
	.stats_add = refnic_emu_cable_shm_stats_add,
	.stats_clear = refnic_emu_cable_shm_stats_clear,
	.view_enter = refnic_emu_cable_shm_view_enter,
	.view_publish = refnic_emu_cable_shm_view_publish,
	.view_leave = refnic_emu_cable_shm_view_leave,
	.view_queue_error = refnic_emu_cable_shm_view_queue_error,
	.view_dma = refnic_emu_cable_shm_view_dma,
	.shared_lock = refnic_emu_cable_shm_shared_lock,
	.shared_unlock = refnic_emu_cable_shm_shared_unlock,
};
