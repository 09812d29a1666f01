/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * libFuzzer: the far end of a shm cable is another process, and everything
 * in the cable's file is that process's to scribble on. Port R holds end 0
 * and port P end 1 of one shm cable, both in this process; the fuzzer plays
 * a hostile process at end 1 that writes straight into the file: end 1's
 * pid, generation, doze flag and delivering count, the plug, the words of
 * R's port a delivering far end writes (where delivery stands, busy words,
 * errors found, R's queue vectors and counters) and, as no behaving one
 * does, R's queue generations; and its own published
 * port that R delivers into (configuration, queue set-up, tail, vectors).
 * R's engine and R's sends take it all as it comes, racing the writes as
 * they would race a real process. Then the far end writes back what a
 * behaving one would have there (R's own words, R's device rewrites). Nothing may crash or reach outside the
 * file or the memory handed over (ASan, UBSan); what R delivers to its
 * application is a frame the contract allows; and once the far end behaves
 * again, P's frames reach R and R's reach P (abort otherwise). A port whose
 * PMD gave up recovering while the far end misbehaved (its device resets
 * waited on a far end that never let go, the time they had running out:
 * sooner on a loaded machine) asks to be reset, and is, as an application
 * does (RTE_ETH_EVENT_INTR_RESET, RTE_ETH_EVENT_RECOVERY_FAILED).
 *
 * Not scribbled: the IOVAs of the far end's own rings. A far end that points
 * us elsewhere in the memory it handed over hurts only itself, but here
 * that memory is this process's.
 */

#include <fcntl.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "../xstat.h"
#include "refnic_emu_cable_shm.h"
#include "refnic_emu.h"
#include "refnic_emu_intr.h"

#define FZ_R		"net_refnic_fzr"
#define FZ_P		"net_refnic_fzp"
#define FZ_RING		256
#define FZ_DRAIN_MS	20		/* for R's engine to take them */
#define FZ_WAIT_MS	2000		/* for P's frame once the file is sane */
#define FZ_MARK_LEN	77		/* the well-formed frame's length */
#define FZ_R_LEN	64		/* R's frames' */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rte_mempool *pool;
static uint16_t port_r, port_p;
static struct rte_ether_addr mac_r;
static struct shm_layout *shm;
/* What the input may write over, as a well-behaved end 1 keeps it. */
static struct shm_port saved_r_port;
static uint32_t saved_p_tail, saved_p_gen;
static uint32_t gen_p;			/* end 1's generation, as P attached */
static bool reset_asked[RTE_MAX_ETHPORTS];	/* by the PMD's events */

/* The input, read field by field; zeros once it runs out. */
struct input {
	const uint8_t *p;
	size_t left;
};

static uint32_t
take(struct input *in, size_t n)
{
	uint32_t v = 0;

	while (n-- > 0 && in->left > 0) {
		v = v << 8 | *in->p++;
		in->left--;
	}
	return v;
}

static int
port_start(uint16_t port)
{
	struct rte_eth_conf conf = { .intr_conf = { .lsc = 0 } };

	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, FZ_RING, SOCKET_ID_ANY, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, FZ_RING, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start(port) != 0)
		return -1;
	return rte_eth_promiscuous_enable(port);
}

/* The PMD asks the application to reset port (the EAL's interrupt thread). */
static int
on_reset_asked(uint16_t port, enum rte_eth_event_type type __rte_unused,
	       void *arg __rte_unused, void *ret __rte_unused)
{
	__atomic_store_n(&reset_asked[port], true, __ATOMIC_RELEASE);
	return 0;
}

/* Reset, set up and start the ports that asked for it, as an application does. */
static void
reset_as_asked(void)
{
	const uint16_t ports[] = { port_r, port_p };
	unsigned int i;

	for (i = 0; i < RTE_DIM(ports); i++)
		if (__atomic_exchange_n(&reset_asked[ports[i]], false, __ATOMIC_ACQ_REL) &&
		    (rte_eth_dev_reset(ports[i]) != 0 || port_start(ports[i]) != 0))
			abort();
}

/* Take what port received; returns how many frames were mark_len long. */
static unsigned int
receive(uint16_t port, uint16_t mark_len)
{
	struct rte_mbuf *rx[32];
	unsigned int marks = 0;
	uint16_t n, i;

	while ((n = rte_eth_rx_burst(port, 0, rx, RTE_DIM(rx))) != 0) {
		for (i = 0; i < n; i++) {
			/* The device delivers Ethernet frames, within the contract. */
			if (rx[i]->pkt_len < RTE_ETHER_HDR_LEN ||
			    rx[i]->pkt_len > REFNIC_MAX_FRAME_LEN)
				abort();
			marks += rx[i]->pkt_len == mark_len;
		}
		rte_pktmbuf_free_bulk(rx, n);
	}
	return marks;
}

static unsigned int
receive_r(void)
{
	return receive(port_r, FZ_MARK_LEN);
}

static void
frame_fill(uint8_t *p, uint16_t len)
{
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)p;

	memset(p, 0x5a, len);
	eh->dst_addr = mac_r;
	eh->ether_type = rte_cpu_to_be_16(0x88b5);
}

/* R sends one frame, into the ring whose head the input may have written. */
static void
send_r(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL)
		return;
	frame_fill((uint8_t *)rte_pktmbuf_append(m, FZ_R_LEN), FZ_R_LEN);
	if (rte_eth_tx_burst(port_r, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
}

/* P sends the well-formed frame: its doorbell delivers it into R's ring. */
static void
send_p_good(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL)
		return;
	frame_fill((uint8_t *)rte_pktmbuf_append(m, FZ_MARK_LEN), FZ_MARK_LEN);
	if (rte_eth_tx_burst(port_p, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
}

static void
take_bytes(struct input *in, void *dst, size_t len)
{
	size_t n = RTE_MIN(len, in->left);

	memcpy(dst, in->p, n);
	in->p += n;
	in->left -= n;
}

/* The words of R's port that the delivering far end writes. */
static void
scribble_r_port(struct input *in, uint32_t flags)
{
	struct shm_port *port = &shm->port[0];
	struct shm_rxq *q = &port->q[take(in, 1) % REFNIC_MAX_QUEUES];
	/* The vectors lie in the file as the device holds them. */
	struct refnic_emu_intr *intr = (struct refnic_emu_intr *)port->intr;
	struct refnic_emu_vector *vec = &intr->vec[take(in, 1) % REFNIC_MAX_VECTORS];

	if (flags & 0x01) {
		q->pub = take(in, 4);
		q->head = take(in, 4);
		q->phase = take(in, 1);
	}
	if (flags & 0x02)
		q->busy = take(in, 4);
	if (flags & 0x04) {
		q->error = take(in, 1);
		port->errors_pending = take(in, 1);
	}
	if (flags & 0x08) {
		vec->armed = take(in, 1);
		vec->pending = take(in, 1);
		vec->rx_qid = take(in, 2);
		vec->tx_qid = take(in, 2);
		vec->due_tsc = (uint64_t)take(in, 4) << 8;
		intr->held = take(in, 1) & 1;
	}
	if (flags & 0x10)
		take_bytes(in, &port->stats[take(in, 1) % REFNIC_EMU_SHARDS].q[0], 16);
	/* Not the far end's word: R takes its set-up back. */
	if (flags & 0x20)
		q->gen = take(in, 4);
}

/*
 * The far end's words in R's queues as a behaving one has them: out of
 * every ring (P delivers only from this thread) with no error found, and
 * where delivery stands as it was, unless R published the queue anew
 * meanwhile, which rewrote that. R's own words (its set-up, its tail) are
 * R's to write, never ours.
 */
static void
restore_r_queues(void)
{
	struct shm_rxq *q = shm->port[0].q;
	const struct shm_rxq *saved = saved_r_port.q;
	unsigned int i;

	for (i = 0; i < REFNIC_MAX_QUEUES; i++) {
		q[i].busy = 0;
		q[i].error = 0;
		if (q[i].gen != saved[i].gen)
			continue;
		q[i].pub = saved[i].pub;
		q[i].head = saved[i].head;
		q[i].phase = saved[i].phase;
	}
}

/* End 1's own port, which R delivers into: all but its rings' IOVAs. */
static void
scribble_p_port(struct input *in, uint32_t flags)
{
	struct shm_port *port = &shm->port[1];
	struct shm_rxq *q = &port->q[0];

	if (flags & 0x01) {
		take_bytes(in, &port->cfg, sizeof(port->cfg));
		port->cfg.seq &= ~1u;
	}
	if (flags & 0x02) {
		q->enabled = take(in, 1);
		q->size = take(in, 2);
		q->buf_size = take(in, 2);
		q->vector = take(in, 1);
		q->intr = take(in, 1);
		q->mem_gen = take(in, 4);
		q->gen = take(in, 4);
	}
	if (flags & 0x04)
		q->tail = take(in, 4);
	if (flags & 0x08)
		take_bytes(in, &port->intr, RTE_MIN(sizeof(port->intr), (size_t)64));
}

/* What the next one to read a failure needs: where delivery stands. */
static void
report_stall(bool to_r, bool to_p)
{
	static const char *const names[] = {
		"rx_good_packets", "rx_no_buffer", "tx_good_packets", "cable_tx_dropped",
		"queue_errors", "recoveries", "recovery_failures", "device_resets",
	};
	const struct shm_rxq *q = &shm->port[0].q[0];
	struct rte_eth_link link;
	unsigned int i, k;

	fprintf(stderr, "fuzz_shm_cable: well-formed frames no longer reach %s\n"
		"  R's queue 0 in the file: gen %u enabled %u size %u tail %u pub %u head %u phase %u\n",
		!to_r && !to_p ? "R and P" : !to_r ? "R" : "P",
		q->gen, q->enabled, q->size, q->tail, q->pub, q->head, q->phase);
	for (k = 0; k < 2; k++) {
		uint16_t port = k == 0 ? port_r : port_p;

		rte_eth_link_get_nowait(port, &link);
		fprintf(stderr, "  %s: link %s", k == 0 ? "R" : "P", link.link_status ? "up" : "down");
		for (i = 0; i < RTE_DIM(names); i++)
			fprintf(stderr, ", %s %" PRIu64, names[i], refnic_xstat(port, names[i], 0));
		fprintf(stderr, "\n");
	}
}

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv)
{
	char *eal[] = { (*argv)[0], "--no-huge", "-m", "512", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0", "--log-level=*:emerg", NULL };
	char cable[32], args[96], path[64];
	int fd;

	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		abort();
	pool = rte_pktmbuf_pool_create("fuzz", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	snprintf(cable, sizeof(cable), "fzshm%d", (int)getpid());
	snprintf(args, sizeof(args), "cable=shm:%s,profile=ideal,itr=off", cable);
	/* R attaches first: it takes end 0. */
	if (pool == NULL || rte_vdev_init(FZ_R, args) != 0 || rte_vdev_init(FZ_P, args) != 0 ||
	    rte_eth_dev_get_port_by_name(FZ_R, &port_r) != 0 ||
	    rte_eth_dev_get_port_by_name(FZ_P, &port_p) != 0 ||
	    rte_eth_dev_callback_register(RTE_ETH_ALL, RTE_ETH_EVENT_INTR_RESET, on_reset_asked,
					  NULL) != 0 ||
	    rte_eth_dev_callback_register(RTE_ETH_ALL, RTE_ETH_EVENT_RECOVERY_FAILED,
					  on_reset_asked, NULL) != 0 ||
	    port_start(port_r) != 0 || port_start(port_p) != 0 ||
	    rte_eth_macaddr_get(port_r, &mac_r) != 0)
		abort();
	snprintf(path, sizeof(path), REFNIC_SHM_PATH_FMT, cable);
	fd = shm_open(path, O_RDWR, 0);
	if (fd < 0)
		abort();
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	/* Gone with the process: no file left in /dev/shm. */
	shm_unlink(path);
	if (shm == MAP_FAILED || shm->magic != SHM_MAGIC)
		abort();
	gen_p = shm->end[1].gen;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	uint32_t flags, r_flags, p_flags;
	uint64_t end, hz = rte_get_timer_hz();
	bool to_r = false, to_p = false;

	if (size == 0)
		return 0;
	memcpy(&saved_r_port, &shm->port[0], sizeof(saved_r_port));
	saved_p_tail = shm->port[1].q[0].tail;
	saved_p_gen = shm->port[1].q[0].gen;
	flags = take(&in, 1);
	r_flags = take(&in, 1);
	p_flags = take(&in, 1);
	if (flags & 0x01)
		shm->end[1].gen = take(&in, 4);
	if (flags & 0x02)
		shm->end[1].pid = (int32_t)take(&in, 4);
	if (flags & 0x04)
		shm->unplugged = take(&in, 1);
	if (flags & 0x08)
		shm->end[1].dozing = take(&in, 1);
	if (flags & 0x10)
		shm->end[1].delivering = take(&in, 4);
	scribble_r_port(&in, r_flags);
	scribble_p_port(&in, p_flags);
	refnic_emu_kick_engines(refnic_emu_lookup(FZ_R));
	refnic_emu_kick_engines(refnic_emu_lookup(FZ_P));
	/* R delivers into the port end 1 published. */
	send_r();
	end = rte_get_timer_cycles() + FZ_DRAIN_MS * hz / 1000;
	do {
		receive_r();
		rte_delay_us_sleep(200);
	} while (rte_get_timer_cycles() < end);

	/* The far end behaves again: what it wrote of R's port is as it was
	 * (R's own words, R rewrites), and its frames reach R. */
	restore_r_queues();
	shm->port[0].errors_pending = 0;
	if (r_flags & 0x08)
		memcpy(&shm->port[0].intr, &saved_r_port.intr, sizeof(saved_r_port.intr));
	/* P's tail, as P's device took it, unless P published its queue
	 * anew meanwhile (P takes nothing from its ring before this). */
	if (shm->port[1].q[0].gen == saved_p_gen)
		shm->port[1].q[0].tail = saved_p_tail;
	shm->end[1].gen = gen_p;
	shm->end[1].pid = (int32_t)getpid();
	shm->end[1].dozing = 0;
	shm->end[1].delivering = 0;
	shm->unplugged = 0;
	end = rte_get_timer_cycles() + FZ_WAIT_MS * hz / 1000;
	do {
		reset_as_asked();
		if (!to_r)
			send_p_good();
		if (!to_p)
			send_r();
		rte_delay_us_sleep(1000);
		to_r = to_r || receive_r() != 0;
		to_p = to_p || receive(port_p, FZ_R_LEN) != 0;
		if (to_r && to_p)
			return 0;
	} while (rte_get_timer_cycles() < end);
	report_stall(to_r, to_p);
	abort();
}
