/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * cable=shm:NAME - a cable between two processes, in shared memory
 * (/dev/shm/refnic-cable-NAME). Each direction is a single-producer,
 * single-consumer ring of frame slots, lock-free: the sending engine owns
 * its tail, the receiving engine its head.
 *
 * The first two ports to name the cable take its two ends. Holding an end
 * is holding a lock on its byte of the file (an open file description
 * lock): the kernel drops it when the process goes, even killed, so the end
 * is free again and either side may restart. The other side sees its link
 * go down when the process goes, and down and up when a new one takes the
 * end. Every slot says which attachment of each end it was sent from and to
 * (generation numbers), so a frame sent by or to a previous process is
 * never delivered. Everything in the file is the other process's to
 * scribble on: it is checked, and frames are copied out before they are
 * looked at.
 *
 * An engine that dozes is woken by a datagram on an abstract unix socket of
 * its end, sent by the other engine only when the end says it dozes.
 */

#include <errno.h>
#include <fcntl.h>
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
#include <rte_string_fns.h>

#include "refnic_cable.h"
#include "refnic_cable_shm.h"

#define SHM_RX_BUDGET		64		/* frames per engine pass */
#define SHM_LIVENESS_US		20000		/* how often a silent peer is checked */
#define SHM_OPEN_TRIES		3		/* the file removed while we opened it */
#define SHM_WAKE_DRAIN		64		/* wake-ups read per doze, at most */

struct shm_cable {
	struct refnic_cable c;
	char path[REFNIC_EMU_NAME_LEN + 16];	/* shm_open name */
	int fd;
	int sock;			/* wake-ups for this end */
	struct sockaddr_un peer_addr;
	socklen_t peer_addr_len;
	struct shm_layout *shm;
	unsigned int me;		/* our end: 0 or 1 */
	uint32_t my_gen;
	bool peer_up;			/* as last seen */
	uint32_t peer_gen;
	uint32_t tx_tail;		/* next slot to fill, not yet published */
	/* One producer, whichever engine sends; peer_up and peer_gen, which
	 * senders read, change under it too. */
	rte_spinlock_t tx_lock;
	uint64_t next_liveness_tsc;
	bool corrupt_logged;
	uint8_t rx_buf[SHM_SLOT_DATA];	/* a frame, out of the peer's reach */
};

static inline unsigned int
peer_of(const struct shm_cable *sc)
{
	return sc->me ^ 1;
}

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

/* Does another open file description hold end e? Its process is alive. */
static bool
end_held(int fd, unsigned int e)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = e, .l_len = 1 };

	return fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
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

static void
shm_kick_peer(struct shm_cable *sc)
{
	static const char kick = 'k';

	/* Lost kicks are harmless: a dozing engine looks again within
	 * its longest doze. */
	(void)sendto(sc->sock, &kick, 1, MSG_DONTWAIT,
		     (struct sockaddr *)&sc->peer_addr, sc->peer_addr_len);
}

static bool
shm_link_up(const struct refnic_cable *c, const struct refnic_emu *emu __rte_unused)
{
	const struct shm_cable *sc = (const struct shm_cable *)c;

	return sc->peer_up && !__atomic_load_n(&sc->shm->unplugged, __ATOMIC_ACQUIRE);
}

/*
 * Look at the far end: gone (its slot freed, or its process dead), or
 * replaced by a new process, which the port sees as its link going down,
 * then up again.
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
		sc->next_liveness_tsc = now + refnic_emu_us_to_tsc(SHM_LIVENESS_US);
		up = end_held(sc->fd, peer_of(sc));
	}
	if (up == sc->peer_up && !replaced)
		goto link;
	rte_spinlock_lock(&sc->tx_lock);
	if (replaced && up && sc->peer_up) {
		/* Restarted between two looks: the port still sees it go. */
		sc->peer_up = false;
		refnic_emu_update_link(emu);
	}
	sc->peer_gen = gen;
	sc->peer_up = up;
	rte_spinlock_unlock(&sc->tx_lock);
link:
	/* Also follows a cable pulled on the other side. */
	if (emu->link_up != shm_link_up(&sc->c, emu))
		refnic_emu_update_link(emu);
}

static void
shm_tx(struct refnic_cable *c, struct refnic_emu *emu, const struct refnic_frame *f,
       struct refnic_rx_batch *b __rte_unused)
{
	struct shm_cable *sc = (struct shm_cable *)c;
	struct shm_ring *ring = &sc->shm->ring[peer_of(sc)];
	struct shm_slot *slot;
	uint32_t off = 0;
	uint16_t s;

	rte_spinlock_lock(&sc->tx_lock);
	if (!shm_link_up(c, emu) || f->len > SHM_SLOT_DATA ||
	    sc->tx_tail - __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE) >= SHM_SLOTS) {
		rte_spinlock_unlock(&sc->tx_lock);
		emu_stats(emu)->cable_tx_dropped++;
		return;
	}
	slot = &ring->slot[sc->tx_tail % SHM_SLOTS];
	for (s = 0; s < f->nb_segs; s++) {
		memcpy(slot->data + off, f->seg[s], f->seg_len[s]);
		off += f->seg_len[s];
	}
	slot->len = f->len;
	slot->src_gen = sc->my_gen;
	slot->dst_gen = sc->peer_gen;
	sc->tx_tail++;
	rte_spinlock_unlock(&sc->tx_lock);
}

static void
shm_tx_flush(struct refnic_cable *c, struct refnic_emu *emu __rte_unused,
	     struct refnic_rx_batch *b __rte_unused)
{
	struct shm_cable *sc = (struct shm_cable *)c;
	struct shm_ring *ring = &sc->shm->ring[peer_of(sc)];
	bool kick;

	rte_spinlock_lock(&sc->tx_lock);
	if (sc->tx_tail == ring->tail) {
		rte_spinlock_unlock(&sc->tx_lock);
		return;
	}
	/* Dekker with the peer's doze: publish, then read its flag. */
	__atomic_store_n(&ring->tail, sc->tx_tail, __ATOMIC_SEQ_CST);
	kick = __atomic_load_n(&sc->shm->end[peer_of(sc)].dozing, __ATOMIC_SEQ_CST);
	rte_spinlock_unlock(&sc->tx_lock);
	if (kick)
		shm_kick_peer(sc);
}

static unsigned int
shm_rx_service(struct refnic_cable *c, struct refnic_emu *emu, uint64_t now)
{
	struct shm_cable *sc = (struct shm_cable *)c;
	struct shm_ring *ring = &sc->shm->ring[sc->me];
	uint32_t head = ring->head, tail, n = 0;
	struct refnic_frame f = { .nb_segs = 1 };
	struct refnic_rx_batch batch = { .held = NULL };

	/* Tail first: every frame up to it was sent by an attachment the
	 * peer check below already sees. */
	tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
	shm_check_peer(sc, emu, now);
	if (tail - head > SHM_SLOTS) {
		if (!sc->corrupt_logged)
			EMU_LOG(ERR, "%s: shm cable ring corrupt (head %u, tail %u): emptied",
				emu->name, head, tail);
		sc->corrupt_logged = true;
		emu_stats(emu)->cable_rx_dropped += SHM_SLOTS;
		__atomic_store_n(&ring->head, tail, __ATOMIC_RELEASE);
		return 1;
	}
	while (head != tail && n < SHM_RX_BUDGET) {
		const struct shm_slot *slot = &ring->slot[head % SHM_SLOTS];
		uint32_t len = __atomic_load_n(&slot->len, __ATOMIC_RELAXED);

		if (!sc->peer_up || len < EMU_ETH_HLEN || len > SHM_SLOT_DATA ||
		    __atomic_load_n(&slot->src_gen, __ATOMIC_RELAXED) != sc->peer_gen ||
		    __atomic_load_n(&slot->dst_gen, __ATOMIC_RELAXED) != sc->my_gen) {
			emu_stats(emu)->cable_rx_dropped++;
		} else {
			/* Parsed once, as copied: the peer may write the slot. */
			memcpy(sc->rx_buf, slot->data, len);
			f.len = len;
			f.seg[0] = sc->rx_buf;
			f.seg_len[0] = len;
			refnic_emu_rx_frame(emu, &f, &batch);
		}
		head++;
		n++;
	}
	refnic_emu_rx_batch_end(&batch);
	if (n == 0)
		return 0;
	__atomic_store_n(&ring->head, head, __ATOMIC_RELEASE);
	return n;
}

static void
shm_set_plugged(struct refnic_cable *c, struct refnic_emu *emu, bool plugged)
{
	struct shm_cable *sc = (struct shm_cable *)c;

	__atomic_store_n(&sc->shm->unplugged, !plugged, __ATOMIC_RELEASE);
	refnic_emu_update_link(emu);
	shm_kick_peer(sc);
}

static int
shm_doze_prepare(struct refnic_cable *c)
{
	struct shm_cable *sc = (struct shm_cable *)c;
	struct shm_ring *ring = &sc->shm->ring[sc->me];

	__atomic_store_n(&sc->shm->end[sc->me].dozing, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ring->tail, __ATOMIC_SEQ_CST) != ring->head)
		return -EAGAIN;
	return sc->sock;
}

static void
shm_doze_end(struct refnic_cable *c)
{
	struct shm_cable *sc = (struct shm_cable *)c;
	unsigned int n = 0;
	char buf[64];

	__atomic_store_n(&sc->shm->end[sc->me].dozing, 0, __ATOMIC_RELAXED);
	/* Anyone may send to an abstract socket: read a bounded number. */
	while (n++ < SHM_WAKE_DRAIN && recv(sc->sock, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
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
	free(sc);
}

static void
shm_detach(struct refnic_cable *c, struct refnic_emu *emu __rte_unused)
{
	struct shm_cable *sc = (struct shm_cable *)c;
	struct shm_end *mine = &sc->shm->end[sc->me];

	/* Its wake-up address goes first: a process taking the end next
	 * binds it. The peer is told after, from an unnamed socket. */
	close(sc->sock);
	sc->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	shm_flock(sc->fd, LOCK_EX);
	__atomic_store_n(&mine->pid, 0, __ATOMIC_RELEASE);
	end_lock(sc->fd, sc->me, F_UNLCK);
	/* The last one out removes the cable; a restarting side makes a new one. */
	if (!end_held(sc->fd, peer_of(sc)))
		shm_unlink(sc->path);
	shm_flock(sc->fd, LOCK_UN);
	shm_kick_peer(sc);
	shm_close(sc);
}

static const struct refnic_cable_ops shm_cable_ops = {
	.tx = shm_tx,
	.tx_flush = shm_tx_flush,
	.rx_service = shm_rx_service,
	.link_up = shm_link_up,
	.set_plugged = shm_set_plugged,
	.doze_prepare = shm_doze_prepare,
	.doze_end = shm_doze_end,
	.detach = shm_detach,
};

static bool
shm_in_use(int fd)
{
	return end_held(fd, 0) || end_held(fd, 1);
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

	if (shm->magic == SHM_MAGIC && shm->version == SHM_VERSION &&
	    shm->nb_slots == SHM_SLOTS && shm->slot_size == sizeof(struct shm_slot) &&
	    shm->size == sizeof(*shm))
		return 0;
	if (shm->magic != 0 && shm_in_use(sc->fd))
		return shm_other_layout(sc, emu_name);
	memset(shm, 0, offsetof(struct shm_layout, ring));
	shm->ring[0].head = shm->ring[0].tail = 0;
	shm->ring[1].head = shm->ring[1].tail = 0;
	shm->version = SHM_VERSION;
	shm->nb_slots = SHM_SLOTS;
	shm->slot_size = sizeof(struct shm_slot);
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
	/* Whatever was sent to the previous holder is not for us. */
	__atomic_store_n(&shm->ring[e].head,
			 __atomic_load_n(&shm->ring[e].tail, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
	sc->tx_tail = shm->ring[peer_of(sc)].tail;
	/* A cable pulled by processes that are all gone is plugged again. */
	if (!end_held(sc->fd, peer_of(sc)))
		shm->unplugged = 0;
	mine->dozing = 0;
	__atomic_store_n(&mine->gen, sc->my_gen, __ATOMIC_RELEASE);
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

int
refnic_cable_shm_attach(struct refnic_emu *emu, const char *name, struct refnic_cable **out)
{
	struct shm_cable *sc;
	int ret;

	sc = calloc(1, sizeof(*sc));
	if (sc == NULL)
		return -ENOMEM;
	sc->c.ops = &shm_cable_ops;
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
	if (ret != 0) {
		__atomic_store_n(&sc->shm->end[sc->me].pid, 0, __ATOMIC_RELEASE);
		goto fail;
	}
	shm_check_peer(sc, emu, rte_get_tsc_cycles());
	/* The far end's engine may doze: tell it we are here. */
	shm_kick_peer(sc);
	EMU_LOG(INFO, "%s: cable shm:%s end %u (peer %s)", emu->name, name, sc->me,
		sc->peer_up ? "present" : "absent");
	*out = &sc->c;
	return 0;
fail:
	shm_close(sc);
	return ret;
}
