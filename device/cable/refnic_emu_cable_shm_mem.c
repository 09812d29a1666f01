/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Memory across an shm cable, as vhost-user's SET_MEM_TABLE hands a
 * guest's memory to its back end: each end sends the far end the file
 * descriptors of its DPDK memory (hugepage files, or the memfd EAL backs
 * --no-huge memory with) and where each piece lies in IOVA space, over the
 * cable's unix socket (SCM_RIGHTS). The far end maps them and translates
 * our RX rings' and buffers' IOVAs through that table, nothing else.
 *
 * A table goes out when a new far end attaches (after HELLO: the port's
 * vectors and its engine's kick eventfd) and again whenever an RX queue is
 * created on memory the last table did not have (queues name the table
 * they need: the far end delivers to them only once it has it). The far
 * end keeps what it mapped until our attachment goes: tables only add.
 *
 * Here too the view of the far end's port built on that memory (made at
 * its HELLO, handed to senders once its whole table came, freed once the
 * last sender left it) and the kick that wakes the far end's engine. The
 * bottom of the cable's three files: it calls neither
 * refnic_emu_cable_shm_ends.c nor refnic_emu_cable_shm_port.c, which call
 * it.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eal_memconfig.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "refnic_emu_cable_services.h"
#include "refnic_emu_cable_shm_priv.h"

#define MEM_RECV_BUDGET		16	/* messages per engine pass */
#define MEM_FDS_MAX		(REFNIC_MAX_VECTORS + 1)

#define MEM_OPENED_MAX		64	/* mappings opened for --no-huge memory */
#define MEM_RETRY_US		1000	/* between sends the far end did not take */

/* A piece of this process's memory, to hand over. */
struct mem_piece {
	uint64_t iova;
	uint64_t len;
	uint64_t offset;
	uintptr_t va;
	int fd;			/* EAL's, or one of the table's opened[] */
};

struct mem_table {
	unsigned int n;
	bool full;
	uint32_t sum;
	struct mem_piece piece[SHM_MAX_REGIONS];
	/* The mapping of the last --no-huge lookup, reused by its pages. */
	uintptr_t vma_start, vma_end;
	uint64_t vma_pgoff;
	int vma_fd;
	unsigned int nb_opened;
	int opened[MEM_OPENED_MAX];
};

/*
 * The file behind the mapping at va, for memory EAL has no fd for (the
 * memfd of --no-huge without --single-file-segments): /proc/self/maps says
 * which mapping, /proc/self/map_files opens its file.
 */
static int
mem_vma_fd(struct mem_table *t, uintptr_t va, uint64_t *offset)
{
	unsigned long start, end, pgoff;
	char line[512], path[64];
	FILE *maps;
	int fd = -1;

	if (t->vma_fd >= 0 && va >= t->vma_start && va < t->vma_end) {
		*offset = t->vma_pgoff + (va - t->vma_start);
		return t->vma_fd;
	}
	maps = fopen("/proc/self/maps", "re");
	if (maps == NULL)
		return -errno;
	while (fgets(line, sizeof(line), maps) != NULL) {
		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &pgoff) != 3 ||
		    va < start || va >= end)
			continue;
		if (t->nb_opened == MEM_OPENED_MAX) {
			fd = -ENOSPC;
			break;
		}
		snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", start, end);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			fd = -errno;
			break;
		}
		t->vma_start = start;
		t->vma_end = end;
		t->vma_pgoff = pgoff;
		t->vma_fd = fd;
		t->opened[t->nb_opened++] = fd;
		*offset = pgoff + (va - start);
		break;
	}
	fclose(maps);
	return fd;
}

static void
mem_add(struct mem_table *t, const struct rte_memseg *ms, int fd, uint64_t offset)
{
	struct mem_piece *last = t->n > 0 ? &t->piece[t->n - 1] : NULL;

	/* Pages that follow each other in the file, in IOVA and VA: one piece. */
	if (last != NULL && last->fd == fd && last->offset + last->len == offset &&
	    last->iova + last->len == ms->iova && last->va + last->len == (uintptr_t)ms->addr) {
		last->len += ms->len;
		return;
	}
	if (t->n == SHM_MAX_REGIONS) {
		t->full = true;
		return;
	}
	t->piece[t->n++] = (struct mem_piece){ .iova = ms->iova, .len = ms->len,
		.offset = offset, .va = (uintptr_t)ms->addr, .fd = fd };
}

static int
mem_walk_seg(const struct rte_memseg_list *msl, const struct rte_memseg *ms, void *arg)
{
	struct mem_table *t = arg;
	size_t offset;
	uint64_t off;
	int fd;

	if (msl->external)
		return 0;	/* not EAL's: it has no file to hand over */
	fd = rte_memseg_get_fd_thread_unsafe(ms);
	if (fd >= 0 && rte_memseg_get_fd_offset_thread_unsafe(ms, &offset) == 0) {
		mem_add(t, ms, fd, offset);
		return 0;
	}
	fd = mem_vma_fd(t, (uintptr_t)ms->addr, &off);
	if (fd >= 0)
		mem_add(t, ms, fd, off);
	return 0;
}

static uint32_t
mem_sum(const struct mem_table *t)
{
	uint32_t h = 2166136261u;	/* FNV-1a over where the pieces are */
	unsigned int i, b;

	for (i = 0; i < t->n; i++) {
		uint64_t w[2] = { t->piece[i].iova, t->piece[i].len };
		const uint8_t *p = (const uint8_t *)w;

		for (b = 0; b < sizeof(w); b++)
			h = (h ^ p[b]) * 16777619u;
	}
	return h;
}

static struct mem_table *
mem_collect(struct shm_cable *sc)
{
	struct mem_table *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->vma_fd = -1;
	rte_memseg_walk_thread_unsafe(mem_walk_seg, t);
	if (t->full)
		EMU_LOG(ERR, "%s: cable shm:%s: memory in more than %u pieces; the far end "
			"reaches only the first", sc->emu->name, sc->name, SHM_MAX_REGIONS);
	t->sum = mem_sum(t);
	return t;
}

static void
mem_table_free(struct mem_table *t)
{
	while (t->nb_opened > 0)
		close(t->opened[--t->nb_opened]);
	free(t);
}

bool
refnic_emu_cable_shm_mem_refresh(struct shm_cable *sc)
{
	struct mem_table *t;
	uint32_t sum;

	rte_mcfg_mem_read_lock();
	t = mem_collect(sc);
	rte_mcfg_mem_read_unlock();
	if (t == NULL)
		return false;
	sum = t->sum;
	mem_table_free(t);
	if (sum == sc->table_sum && sc->port->mem_gen != 0)
		return false;
	sc->table_sum = sum;
	__atomic_store_n(&sc->port->mem_gen, sc->port->mem_gen + 1, __ATOMIC_RELEASE);
	sc->table_unsent = true;
	return true;
}

void
refnic_emu_cable_shm_kick_peer(struct shm_cable *sc)
{
	static const char kick = 'k';

	/* Lost kicks are harmless: a dozing engine looks again within
	 * its longest doze. */
	(void)sendto(sc->sock, &kick, 1, MSG_DONTWAIT,
		     (struct sockaddr *)&sc->peer_addr, sc->peer_addr_len);
}

static int
mem_sendmsg(struct shm_cable *sc, const struct shm_msg *m, size_t len, const int *fds,
	    unsigned int nb_fds)
{
	char cbuf[CMSG_SPACE(sizeof(int) * (SHM_MSG_REGIONS + MEM_FDS_MAX))];
	struct iovec iov = { .iov_base = (void *)(uintptr_t)m, .iov_len = len };
	struct msghdr mh = {
		.msg_name = &sc->peer_addr, .msg_namelen = sc->peer_addr_len,
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	struct cmsghdr *cm;

	if (nb_fds > 0) {
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nb_fds);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nb_fds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nb_fds);
	}
	return sendmsg(sc->sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -errno : 0;
}

static int
mem_send_hello(struct shm_cable *sc, struct shm_msg *m)
{
	struct refnic_emu *emu = sc->emu;
	int fds[MEM_FDS_MAX];
	uint16_t v;

	memset(m, 0, offsetof(struct shm_msg, reg));
	m->magic = SHM_MSG_MAGIC;
	m->type = SHM_MSG_HELLO;
	m->gen = sc->my_gen;
	m->bar_iova = emu->bar_mz->iova;
	m->nb_vectors = emu->nb_vectors;
	for (v = 0; v < emu->nb_vectors; v++)
		fds[v] = emu->vector_fd[v];
	fds[v] = emu->link->kick_fd[0];
	m->count = v + 1;
	return mem_sendmsg(sc, m, offsetof(struct shm_msg, reg), fds, v + 1);
}

static int
mem_send_table(struct shm_cable *sc, struct shm_msg *m, const struct mem_table *t)
{
	int fds[SHM_MSG_REGIONS];
	unsigned int i, k;
	int ret = 0;

	for (i = 0; i < t->n && ret == 0; i += k) {
		memset(m, 0, offsetof(struct shm_msg, reg));
		m->magic = SHM_MSG_MAGIC;
		m->type = SHM_MSG_MEM;
		m->gen = sc->my_gen;
		m->mem_gen = sc->port->mem_gen;
		m->first = i;
		m->total = t->n;
		for (k = 0; k < SHM_MSG_REGIONS && i + k < t->n; k++) {
			const struct mem_piece *p = &t->piece[i + k];

			m->reg[k] = (struct shm_msg_region){ .iova = p->iova, .len = p->len,
							     .offset = p->offset };
			fds[k] = p->fd;
		}
		m->count = k;
		ret = mem_sendmsg(sc, m, offsetof(struct shm_msg, reg) + k * sizeof(m->reg[0]),
				  fds, k);
	}
	return ret;
}

/*
 * The far end is there, but we hold no view of its attachment: its HELLO
 * went to a view we retired (its generation written over and back, as
 * only a misbehaving process does) and will not come again by itself.
 * Ask for it again, now and then; the link stays down until it comes.
 */
static void
mem_ask(struct shm_cable *sc)
{
	const struct shm_view *sv = sc->view;
	struct shm_msg m;
	uint64_t now;

	if (!sc->peer_up || (sv != NULL && sv->peer_gen == sc->peer_gen) ||
	    (sc->pending != NULL && sc->pending->peer_gen == sc->peer_gen))
		return;
	now = rte_get_tsc_cycles();
	if (now < sc->ask_tsc)
		return;
	sc->ask_tsc = now + refnic_emu_svc_us_to_tsc(SHM_ASK_US);
	memset(&m, 0, offsetof(struct shm_msg, reg));
	m.magic = SHM_MSG_MAGIC;
	m.type = SHM_MSG_ASK;
	m.gen = sc->my_gen;
	/* Every 10 ms until it answers: said once per attachment of the far end. */
	if (mem_sendmsg(sc, &m, offsetof(struct shm_msg, reg), NULL, 0) == 0 &&
	    sc->asked_gen != sc->peer_gen) {
		sc->asked_gen = sc->peer_gen;
		EMU_LOG(INFO, "%s: cable shm:%s: asking the far end for its memory again",
			sc->emu->name, sc->name);
	}
}

/* Engine 0: the far end gets HELLO once per attachment (and when it asks),
 * and our tables. */
void
refnic_emu_cable_shm_mem_send(struct shm_cable *sc)
{
	struct mem_table *t;
	struct shm_msg *m;
	int ret;

	mem_ask(sc);
	if (!sc->peer_up || (sc->table_sent_gen == sc->peer_gen && !sc->table_unsent))
		return;
	/* A far end whose socket is full or not bound yet: not every pass. */
	if (rte_get_tsc_cycles() < sc->table_retry_tsc)
		return;
	m = malloc(sizeof(*m));
	if (m == NULL)
		return;
	if (sc->table_sent_gen != sc->peer_gen) {
		ret = mem_send_hello(sc, m);
		if (ret != 0)
			goto out;	/* its socket is full or gone: try again later */
		sc->table_sent_gen = sc->peer_gen;
		sc->table_unsent = true;
	}
	rte_mcfg_mem_read_lock();
	t = mem_collect(sc);
	if (t != NULL) {
		if (t->n == 0)
			EMU_LOG(ERR, "%s: cable shm:%s: no memory to hand over: the far end "
				"cannot deliver (hugepages, or --no-huge with memfd)",
				sc->emu->name, sc->name);
		ret = mem_send_table(sc, m, t);
		sc->table_unsent = ret != 0;
	}
	rte_mcfg_mem_read_unlock();
	if (t != NULL)
		mem_table_free(t);
out:
	if (sc->table_sent_gen != sc->peer_gen || sc->table_unsent)
		sc->table_retry_tsc = rte_get_tsc_cycles() + refnic_emu_svc_us_to_tsc(MEM_RETRY_US);
	free(m);
}

/* --- the far end's view: made at HELLO, used once its table came ------- */

void
refnic_emu_cable_shm_view_free(struct shm_view *sv)
{
	uint32_t i;
	uint16_t v;

	for (i = 0; i < sv->nb_regions; i++)
		if (sv->window == NULL || sv->region[i].va < sv->window ||
		    sv->region[i].va >= sv->window + SHM_WINDOW_LEN + SHM_WINDOW_ALIGN)
			munmap(sv->region[i].va, sv->region[i].len);
	if (sv->window != NULL)
		munmap(sv->window, SHM_WINDOW_LEN + SHM_WINDOW_ALIGN);
	for (v = 0; v < sv->emu.nb_vectors; v++)
		close(sv->emu.vector_fd[v]);
	if (sv->link.kick_fd[0] >= 0)
		close(sv->link.kick_fd[0]);
	rte_free(sv);
}

void *
refnic_emu_cable_shm_view_map(struct shm_view *sv, uint64_t iova, uint64_t len, uint64_t *chunk_iova,
			      uint64_t *chunk_len)
{
	uint32_t n = __atomic_load_n(&sv->nb_regions, __ATOMIC_ACQUIRE), i;

	if (len == 0 || iova + len < iova)
		return NULL;
	for (i = 0; i < n; i++) {
		const struct shm_region *r = &sv->region[i];
		uint64_t r_len = __atomic_load_n(&r->len, __ATOMIC_ACQUIRE);	/* may grow */

		if (iova < r->iova || iova - r->iova > r_len || len > r_len - (iova - r->iova))
			continue;
		if (chunk_iova != NULL) {
			*chunk_iova = r->iova;
			*chunk_len = r_len;
		}
		return r->va + (iova - r->iova);
	}
	return NULL;
}

static struct shm_view *
view_new(struct shm_cable *sc, uint32_t gen, uint64_t bar_iova,
	 uint32_t nb_vectors, const int *fds, unsigned int nb_fds)
{
	struct shm_view *sv;
	struct refnic_emu *v;
	unsigned int i;

	if (nb_vectors == 0 || nb_vectors > REFNIC_MAX_VECTORS || nb_fds != nb_vectors + 1)
		return NULL;
	sv = rte_zmalloc("refnic_shm_view", sizeof(*sv), RTE_CACHE_LINE_SIZE);
	if (sv == NULL)
		return NULL;
	sv->peer_gen = gen;
	sv->bar_iova = bar_iova;
	sv->cfg_seq = UINT32_MAX;
	for (i = 0; i < REFNIC_MAX_QUEUES; i++)
		sv->q_gen[i] = UINT32_MAX;	/* odd: never a settled generation */
	for (i = 0; i < REFNIC_EMU_LINK_MAX_ENGINES; i++)
		sv->link.kick_fd[i] = -1;
	/* A held raise kicks the far end's engine 0, which times it. */
	sv->link.kick_fd[0] = fds[nb_vectors];
	sv->link.engine_dozing = 1;
	v = &sv->emu;
	snprintf(v->name, sizeof(v->name), "%.*s:far", (int)sizeof(v->name) - 5, sc->emu->name);
	v->view_cable = &sc->c;
	v->intr = shm_port_intr(sc->peer_port);
	v->intr_cable = &sc->c;
	v->stats = sc->peer_port->stats;
	v->link = &sv->link;
	v->state = REFNIC_STATE_OFF;
	v->rx_plan = REFNIC_EMU_RX_ALL;	/* until its configuration is read */
	v->params.max_queues = REFNIC_MAX_QUEUES;
	v->nb_vectors = nb_vectors;
	for (i = 0; i < REFNIC_MAX_VECTORS; i++)
		v->vector_fd[i] = i < nb_vectors ? fds[i] : -1;
	return sv;
}

/* Senders may use it once its BAR's registers map (its vectors' moderation). */
static bool
view_activate(struct shm_cable *sc, struct shm_view *sv)
{
	sv->emu.bar0 = refnic_emu_cable_shm_view_map(sv, sv->bar_iova, REFNIC_BAR0_SIZE, NULL, NULL);
	if (sv->emu.bar0 == NULL) {
		EMU_LOG(ERR, "%s: cable shm:%s: the far end's BAR is outside its memory",
			sc->emu->name, sc->name);
		return false;
	}
	/* Its clock, for RX stamps and PTP latches: in the same memzone as its
	 * BAR; without it (not in the memory handed over) frames go unstamped. */
	sv->emu.clock = refnic_emu_cable_shm_view_map(sv, sv->bar_iova +
						      refnic_emu_svc_bar_clock_offset(),
						      sizeof(*sv->emu.clock), NULL, NULL);
	__atomic_store_n(&sc->view, sv, __ATOMIC_SEQ_CST);
	EMU_LOG(INFO, "%s: cable shm:%s: delivering into the far end's port (%u regions)",
		sc->emu->name, sc->name, sv->nb_regions);
	return true;
}

/* Senders see no view, then the last of them leaves (our delivering word). */
void
refnic_emu_cable_shm_view_retire(struct shm_cable *sc)
{
	const uint32_t *delivering = &sc->shm->end[sc->me].delivering;
	struct shm_view *sv = sc->view;
	uint64_t deadline;

	if (sv == NULL)
		return;
	__atomic_store_n(&sc->view, NULL, __ATOMIC_SEQ_CST);
	deadline = rte_get_tsc_cycles() + refnic_emu_svc_us_to_tsc(SHM_WAIT_MS * 1000);
	while (__atomic_load_n(delivering, __ATOMIC_SEQ_CST) != 0) {
		if (rte_get_tsc_cycles() > deadline) {
			/* Someone wrote the word (it is in the file): keep the
			 * view rather than free it under a sender. */
			EMU_LOG(ERR, "%s: cable shm:%s: senders still counted; the far end's "
				"mappings are kept", sc->emu->name, sc->name);
			return;
		}
		sched_yield();
	}
	refnic_emu_cable_shm_view_free(sv);
}

/* --- the far end's messages --------------------------------------------- */

static void
fds_close(const int *fds, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

/* Already mapped: the whole piece lies in one region (tables only add). */
static bool
region_known(const struct shm_view *sv, uint64_t iova, uint64_t len)
{
	uint32_t i;

	for (i = 0; i < sv->nb_regions; i++)
		if (iova >= sv->region[i].iova &&
		    iova - sv->region[i].iova + len <= sv->region[i].len)
			return true;
	return false;
}

/*
 * Where a piece of the far end's memory goes here: in the view's window,
 * right after the piece before it if the two follow each other in IOVA,
 * else at the next address aligned for its pages (a hugetlbfs mapping
 * must be); outside the window (none, or full) wherever mmap puts it.
 */
static uint8_t *
view_place(struct shm_view *sv, const struct shm_region *last, uint64_t iova, uint64_t len,
	   bool *follows)
{
	uint64_t align = RTE_MIN(len & -len, (uint64_t)SHM_WINDOW_ALIGN), at;

	*follows = false;
	if (sv->window == NULL) {
		void *w = mmap(NULL, SHM_WINDOW_LEN + SHM_WINDOW_ALIGN, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (w == MAP_FAILED)
			return NULL;
		sv->window = w;
		sv->window_used = RTE_ALIGN_CEIL((uintptr_t)w, SHM_WINDOW_ALIGN) - (uintptr_t)w;
	}
	if (last != NULL && last->iova + last->len == iova &&
	    last->va + last->len == sv->window + sv->window_used &&
	    sv->window_used % align == 0) {
		*follows = true;
		at = sv->window_used;
	} else {
		at = RTE_ALIGN_CEIL(sv->window_used, align);
	}
	if (at + len > SHM_WINDOW_LEN + SHM_WINDOW_ALIGN || at + len < at)
		return NULL;
	return sv->window + at;
}

/*
 * Map a piece of the far end's memory. Pieces that follow each other in
 * IOVA are mapped one after the other here too, as one region: an IOVA-
 * contiguous ring or buffer may span them (hugepages with IOVA as PA, one
 * file a page), and a range is reached through one region. Senders see a
 * region, or its new length, once it is mapped (release).
 */
int
refnic_emu_cable_shm_view_add(struct shm_view *sv, uint64_t iova, uint64_t len, int fd,
			      uint64_t offset)
{
	struct shm_region *last = sv->nb_regions > 0 ? &sv->region[sv->nb_regions - 1] : NULL;
	bool follows = false;
	uint8_t *at;
	void *va;

	if (len == 0 || iova + len < iova || region_known(sv, iova, len))
		return 0;
	if (sv->nb_regions == SHM_MAX_REGIONS)
		return -ENOSPC;
	at = view_place(sv, last, iova, len, &follows);
	va = mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | (at != NULL ? MAP_FIXED : 0),
		  fd, offset);
	if (va == MAP_FAILED && at != NULL) {
		/* Not where the window wanted it: anywhere, and the window is
		 * not used again (a failed MAP_FIXED may have cut it). */
		sv->window_used = SHM_WINDOW_LEN + SHM_WINDOW_ALIGN;
		follows = false;
		at = NULL;
		va = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
	}
	if (va == MAP_FAILED)
		return -errno;
	if (at != NULL)
		sv->window_used = (uint64_t)((uint8_t *)va + len - sv->window);
	if (follows) {
		__atomic_store_n(&last->len, last->len + len, __ATOMIC_RELEASE);
		return 0;
	}
	sv->region[sv->nb_regions] = (struct shm_region){ .iova = iova, .len = len, .va = va };
	__atomic_store_n(&sv->nb_regions, sv->nb_regions + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Map what came. */
static void
view_add_regions(struct shm_cable *sc, struct shm_view *sv, const struct shm_msg *m,
		 const int *fds)
{
	unsigned int k;
	int ret;

	for (k = 0; k < m->count; k++) {
		const struct shm_msg_region *r = &m->reg[k];

		ret = refnic_emu_cable_shm_view_add(sv, r->iova, r->len, fds[k], r->offset);
		if (ret == -ENOSPC) {
			EMU_LOG(ERR, "%s: cable shm:%s: the far end's memory has more than %u "
				"pieces", sc->emu->name, sc->name, SHM_MAX_REGIONS);
			return;
		}
		if (ret != 0)
			EMU_LOG(ERR, "%s: cable shm:%s: cannot map the far end's memory "
				"(0x%" PRIx64 " len %" PRIu64 "): %s", sc->emu->name, sc->name,
				r->iova, r->len, strerror(-ret));
	}
}

static void
mem_on_table(struct shm_cable *sc, const struct shm_msg *m, const int *fds)
{
	struct shm_view *sv = sc->pending != NULL && sc->pending->peer_gen == m->gen ?
			      sc->pending : sc->view;

	if (sv == NULL || sv->peer_gen != m->gen || m->first + m->count > m->total ||
	    m->count > SHM_MSG_REGIONS)
		return;
	if (m->mem_gen != sv->table_gen || m->first == 0) {
		sv->table_gen = m->mem_gen;
		sv->table_got = 0;
	}
	view_add_regions(sc, sv, m, fds);
	sv->table_got += m->count;
	if (m->first + m->count != m->total || sv->table_got < m->total)
		return;
	__atomic_store_n(&sv->mem_gen, sv->table_gen, __ATOMIC_RELEASE);
	if (sv == sc->pending && view_activate(sc, sv))
		sc->pending = NULL;
}

static bool
mem_on_hello(struct shm_cable *sc, const struct shm_msg *m, const int *fds, unsigned int n)
{
	struct shm_view *sv;

	if ((sc->view != NULL && sc->view->peer_gen == m->gen) ||
	    (sc->pending != NULL && sc->pending->peer_gen == m->gen))
		return false;	/* again: it resends until it gets through */
	sv = view_new(sc, m->gen, m->bar_iova, m->nb_vectors, fds, n);
	if (sv == NULL)
		return false;
	if (sc->pending != NULL)
		refnic_emu_cable_shm_view_free(sc->pending);
	sc->pending = sv;
	return true;
}

unsigned int
refnic_emu_cable_shm_mem_receive(struct shm_cable *sc)
{
	char cbuf[CMSG_SPACE(sizeof(int) * (SHM_MSG_REGIONS + MEM_FDS_MAX))];
	unsigned int work = 0, budget, nb_fds;
	struct shm_msg *m = NULL;
	int fds[SHM_MSG_REGIONS + MEM_FDS_MAX];

	for (budget = 0; budget < MEM_RECV_BUDGET; budget++) {
		struct iovec iov;
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *cm;
		bool kept = false;
		ssize_t len;

		if (m == NULL) {
			m = malloc(sizeof(*m));
			if (m == NULL)
				break;
		}
		iov = (struct iovec){ .iov_base = m, .iov_len = sizeof(*m) };
		len = recvmsg(sc->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (len < 0)
			break;
		nb_fds = 0;
		for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
			unsigned int k;

			if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
				continue;
			k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			k = RTE_MIN(k, (unsigned int)RTE_DIM(fds) - nb_fds);
			memcpy(&fds[nb_fds], CMSG_DATA(cm), k * sizeof(int));
			nb_fds += k;
		}
		/* A wake-up, or something we did not ask for (anyone can
		 * send to an abstract socket): its fds go back. */
		if ((size_t)len >= offsetof(struct shm_msg, reg) && m->magic == SHM_MSG_MAGIC &&
		    !(mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) && sc->peer_up &&
		    m->gen == sc->peer_gen && m->count == nb_fds &&
		    (size_t)len >= offsetof(struct shm_msg, reg) +
				   (m->type == SHM_MSG_MEM ? m->count * sizeof(m->reg[0]) : 0)) {
			if (m->type == SHM_MSG_HELLO)
				kept = mem_on_hello(sc, m, fds, nb_fds);
			else if (m->type == SHM_MSG_MEM)
				mem_on_table(sc, m, fds);
			else if (m->type == SHM_MSG_ASK)
				sc->table_sent_gen = sc->peer_gen + 1;	/* all again */
			work++;
		}
		if (!kept)
			fds_close(fds, nb_fds);
	}
	free(m);
	return work;
}
