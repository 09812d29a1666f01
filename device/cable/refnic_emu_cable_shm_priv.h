/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_CABLE_SHM_PRIV_H_
#define _REFNIC_EMU_CABLE_SHM_PRIV_H_

/*
 * Inside the shm cable, shared by its files:
 *   refnic_emu_cable_shm_ends.c  the file, its two ends, link, the socket,
 *                                the ops;
 *   refnic_emu_cable_shm_port.c  the receive side this port publishes, and
 *                                delivery through the view of the far
 *                                end's;
 *   refnic_emu_cable_shm_mem.c   memory tables: this process's memory handed
 *                                to the far end, the far end's mapped here
 *                                and the view made on it.
 */

#include <fcntl.h>
#include <sys/un.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_cable_services.h"
#include "refnic_emu_cable_shm.h"

/* The file holds the device's own flow table, vectors and counter shards. */
_Static_assert(sizeof(struct refnic_emu_flows) == SHM_FLOWS_SIZE &&
	       _Alignof(struct refnic_emu_flows) <= 8, "SHM_FLOWS_SIZE: the device's flow table");
_Static_assert(sizeof(struct refnic_emu_intr) == SHM_INTR_SIZE &&
	       _Alignof(struct refnic_emu_intr) <= RTE_CACHE_LINE_SIZE,
	       "SHM_INTR_SIZE: the device's queue vectors");
_Static_assert(SHM_SHARDS == REFNIC_EMU_SHARDS, "SHM_SHARDS: the device's counter shards");

#define SHM_MAX_REGIONS		8192	/* of the far end's memory, mapped here */
/* Address space a view maps the far end's memory into (reserved, not
 * backed), and the alignment a run of pieces starts at (1 GiB pages). */
#define SHM_WINDOW_LEN		(UINT64_C(16) << 30)
#define SHM_WINDOW_ALIGN	(UINT64_C(1) << 30)
#define SHM_WAIT_MS		100	/* for the far end to leave a ring or the port */
#define SHM_ASK_US		10000	/* a far end there but not delivered to: ask */

/* A piece of the far end's memory, mapped here. */
struct shm_region {
	uint64_t iova;
	uint64_t len;
	uint8_t *va;
};

/*
 * The far end's receive side as this process delivers into it: a device
 * view (struct refnic_emu) whose configuration is copied from the far
 * end's port, whose RX queues are this process's bookkeeping of the far
 * end's rings (the far end's device created them; only we fill them),
 * whose vectors and counters are the far end's, in the file, and whose
 * DMA goes through the far end's memory, mapped here.
 */
struct shm_view {
	struct refnic_emu emu;
	uint32_t peer_gen;		/* the attachment it belongs to */
	uint32_t cfg_seq;		/* configuration last copied */
	uint32_t flows_gen;		/* flow table last copied */
	uint32_t q_gen[REFNIC_MAX_QUEUES]; /* queue set-up last taken */
	bool q_busy[REFNIC_MAX_QUEUES];	/* we hold its busy word */
	uint32_t mem_gen;		/* the last whole table */
	uint32_t table_gen;		/* the table coming in ... */
	uint32_t table_got;		/* ... and how much of it came */
	uint64_t bar_iova;
	uint32_t nb_regions;		/* release: senders look regions up */
	struct shm_region region[SHM_MAX_REGIONS];
	uint8_t *window;		/* SHM_WINDOW_LEN + _ALIGN, or NULL */
	uint64_t window_used;		/* from window: the next piece's place */
	struct refnic_emu_link link;	/* kick_fd[0]: the far end's engine 0 */
};

struct shm_cable {
	struct refnic_emu_cable c;
	struct refnic_emu *emu;		/* the port's device */
	char name[REFNIC_EMU_NAME_LEN];
	char path[REFNIC_EMU_NAME_LEN + 16];	/* shm_open name */
	int fd;
	int sock;			/* wake-ups and memory tables for this end */
	struct sockaddr_un peer_addr;
	socklen_t peer_addr_len;
	struct shm_layout *shm;
	unsigned int me;		/* our end: 0 or 1 */
	uint32_t my_gen;
	uint32_t my_tag;		/* shm_lock_tag() of this attachment */
	bool peer_up;			/* as last seen */
	uint32_t peer_gen;
	/* peer_up and peer_gen change under it; senders read them. */
	rte_spinlock_t tx_lock;
	uint64_t next_liveness_tsc;

	/* This port's receive side, in the file. */
	struct shm_port *port;
	struct shm_rx_config cfg_last;	/* as last published ... */
	uint32_t cfg_seq;		/* ... under this seq */
	uint32_t q_gen[REFNIC_MAX_QUEUES]; /* queue set-ups as last published */
	uint32_t table_sent_gen;	/* peer attachment our table went to */
	uint32_t table_sum;		/* of the last table collected */
	bool table_unsent;
	uint64_t table_retry_tsc;	/* not sent again before */
	uint64_t ask_tsc;		/* no view of the far end: ask it from then */
	uint32_t asked_gen;		/* far end generation last logged as asked */
	struct refnic_hw_stats *stats_base; /* the far end's counts at STATS_CLEAR */

	/* The far end's receive side, as we deliver into it. */
	struct shm_port *peer_port;
	struct shm_view *view;		/* senders' (acquire); NULL: none yet */
	struct shm_view *pending;	/* being set up from the far end's messages */
};

/* A port's flow table and vectors in the file, as the device's. */
static inline struct refnic_emu_flows *
shm_port_flows(struct shm_port *port)
{
	return (struct refnic_emu_flows *)port->flows;
}

static inline struct refnic_emu_intr *
shm_port_intr(struct shm_port *port)
{
	return (struct refnic_emu_intr *)port->intr;
}

static inline unsigned int
peer_of(const struct shm_cable *sc)
{
	return sc->me ^ 1;
}

/* Does another open file description hold end e (a lock on byte e)? Its
 * process is alive. */
static inline bool
shm_end_held(int fd, unsigned int e)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = e, .l_len = 1 };

	return fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
}

static inline bool
refnic_emu_cable_shm_peer_alive(const struct shm_cable *sc)
{
	return shm_end_held(sc->fd, peer_of(sc));
}

/*
 * The three files call one way: refnic_emu_cable_shm_ends.c (the cable: the
 * file, its ends, the ops) calls the port and the memory;
 * refnic_emu_cable_shm_port.c (the receive sides) calls the memory;
 * refnic_emu_cable_shm_mem.c (the far end's process: its socket, its
 * memory mapped here, the view built on it) calls neither.
 */

/* refnic_emu_cable_shm_port.c: the ops the device calls of an shm port
 * (emu->rx_published: its receive side, in the file) and of the view of
 * the far end's (emu->view_cable), through refnic_emu_cable.h. */
void refnic_emu_cable_shm_config_publish(struct refnic_emu *emu);
void refnic_emu_cable_shm_rxq_publish(struct refnic_emu *emu, uint16_t qid);
void refnic_emu_cable_shm_rx_tail(struct refnic_emu *emu, uint16_t qid);
uint16_t refnic_emu_cable_shm_rx_published(const struct refnic_emu *emu, uint16_t qid);
uint16_t refnic_emu_cable_shm_rx_head(const struct refnic_emu *emu, uint16_t qid);
void refnic_emu_cable_shm_stats_add(const struct refnic_emu *emu, struct refnic_hw_stats *sum);
void refnic_emu_cable_shm_stats_clear(struct refnic_emu *emu);
void refnic_emu_cable_shm_view_enter(struct refnic_emu *view, uint16_t qid);
void refnic_emu_cable_shm_view_publish(struct refnic_emu *view, uint16_t qid);
void refnic_emu_cable_shm_view_leave(struct refnic_emu *view, uint16_t qid);
void refnic_emu_cable_shm_view_queue_error(struct refnic_emu *view, uint16_t qid);
void *refnic_emu_cable_shm_view_dma(struct refnic_emu *view, uint64_t iova, uint64_t len);
void refnic_emu_cable_shm_shared_lock(struct refnic_emu_cable *c, rte_spinlock_t *lock);
void refnic_emu_cable_shm_shared_unlock(struct refnic_emu_cable *c, rte_spinlock_t *lock);

int refnic_emu_cable_shm_port_init(struct shm_cable *sc);
unsigned int refnic_emu_cable_shm_port_service(struct shm_cable *sc);
void refnic_emu_cable_shm_view_config_sync(struct shm_view *sv, const struct shm_rx_config *cfg);

/* refnic_emu_cable_shm_mem.c */
/* Wake the far end's engine (a datagram on its end's socket). */
void refnic_emu_cable_shm_kick_peer(struct shm_cable *sc);
/* Collect this process's memory; true if it differs from the last table. */
bool refnic_emu_cable_shm_mem_refresh(struct shm_cable *sc);
/* Send HELLO and the memory table to the far end, if it needs them. */
void refnic_emu_cable_shm_mem_send(struct shm_cable *sc);
/* The far end's messages: set up and fill its view. */
unsigned int refnic_emu_cable_shm_mem_receive(struct shm_cable *sc);
/* Senders stop using the view; it is freed once none does. */
void refnic_emu_cable_shm_view_retire(struct shm_cable *sc);
void refnic_emu_cable_shm_view_free(struct shm_view *sv);
/* Map a piece of the far end's memory (fd at offset) as its IOVAs
 * [iova, iova + len); 0 if mapped or mapped already, or -errno. */
int refnic_emu_cable_shm_view_add(struct shm_view *sv, uint64_t iova, uint64_t len, int fd,
				  uint64_t offset);
/* Host address here of the far end's [iova, iova + len), or NULL. */
void *refnic_emu_cable_shm_view_map(struct shm_view *sv, uint64_t iova, uint64_t len,
				    uint64_t *chunk_iova, uint64_t *chunk_len);

#endif /* _REFNIC_EMU_CABLE_SHM_PRIV_H_ */
