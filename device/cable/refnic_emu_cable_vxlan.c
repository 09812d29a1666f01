/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * cable=vxlan:REMOTE[:PORT] - the port is a VXLAN tunnel endpoint (RFC 7348):
 * what it sends goes in UDP datagrams to REMOTE (port 4789 unless given),
 * with the VNI of vxlan_vni= and a source port hashed from the inner
 * frame's flow, so the far end's RSS spreads flows; what arrives on the
 * local address and port of vxlan_local= (any address, 4789 by default)
 * from REMOTE's address with that VNI is received. Peers are anything that
 * speaks VXLAN: another refnic port, the Linux kernel's vxlan device. IPv4,
 * or IPv6 written in brackets ([2001:db8::1]:4789).
 *
 * One nonblocking UDP socket per port receives, in recvmmsg() bursts on
 * the engine, which dozes on it as on a TAP fd. Sends are gathered in a
 * burst and go out in one sendmmsg() at the end of a TX pass (TX queues may
 * run on several threads: the burst is locked). A UDP socket sends from its
 * own port only, so they go through a raw UDP socket that writes the UDP
 * header itself, with the hashed source port (IPv4: checksum 0, as RFC 7348
 * allows; IPv6: the kernel's, IPV6_CHECKSUM). Without CAP_NET_RAW they go
 * from the UDP socket, from its port, and the log says so. The
 * datagram from the network is untrusted: each refusal has its counter
 * (refnic_hw_stats, 1.7), and nothing refused reaches the port.
 *
 * The link is up once the socket is bound and the cable plugged: VXLAN
 * has no link of its own, so a peer that is gone shows as lost frames.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_jhash.h>
#include <rte_spinlock.h>
#include <rte_string_fns.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_cable_kinds.h"
#include "refnic_emu_cable_services.h"
#include "refnic_emu_cable_vxlan.h"

#define VXLAN_BURST		32	/* datagrams per sendmmsg/recvmmsg */
#define VXLAN_UDP_HLEN		8
/* UDP and VXLAN headers, the largest frame the device takes, one byte
 * more: a longer one shows. */
#define VXLAN_SLOT_LEN		RTE_ALIGN(VXLAN_UDP_HLEN + REFNIC_VXLAN_HLEN + \
					  REFNIC_MAX_FRAME_LEN + 1, 64)
#define VXLAN_SOCKBUF		(4 << 20)	/* bursts the engine may be late for */

struct vxlan_burst {
	struct mmsghdr msg[VXLAN_BURST];
	struct iovec iov[VXLAN_BURST];
	struct sockaddr_storage from[VXLAN_BURST];	/* RX only */
	uint8_t buf[VXLAN_BURST][VXLAN_SLOT_LEN];
};

struct vxlan_udp_hdr {
	uint16_t sport, dport, len, csum;
};

struct vxlan_cable {
	struct refnic_emu_cable c;
	int fd;				/* UDP, bound: receives */
	int tx_fd;			/* raw UDP (or fd): sends */
	bool unplugged;
	uint32_t vni;
	struct refnic_vxlan_hdr hdr;	/* what every datagram carries */
	struct sockaddr_storage remote;
	socklen_t remote_len;
	struct sockaddr_storage tx_to;	/* remote, port 0 for a raw socket */
	uint16_t tx_off;		/* a TX slot's first byte sent: 0 raw, 8 UDP */
	rte_spinlock_t tx_lock;		/* TX queues' threads share the burst */
	unsigned int tx_n;
	struct vxlan_burst tx;
	struct vxlan_burst rx;		/* the engine's alone */
	uint32_t rx_overflows;		/* the socket's drops, as counted so far */
};

/* ADDR[:PORT], ADDR an IPv4 address or a bracketed IPv6 one. */
static int
vxlan_parse_addr(const char *s, uint16_t default_port, struct sockaddr_storage *ss,
		 socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *port = NULL, *end;
	unsigned long p = default_port;
	char *pend;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		end = strchr(s, ']');
		if (end == NULL || (size_t)(end - s - 1) >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, end - s - 1);
		host[end - s - 1] = '\0';
		if (end[1] == ':')
			port = end + 2;
		else if (end[1] != '\0')
			return -EINVAL;
	} else {
		end = strchr(s, ':');
		if ((end != NULL ? (size_t)(end - s) : strlen(s)) >= sizeof(host))
			return -EINVAL;
		strlcpy(host, s, end != NULL ? (size_t)(end - s) + 1 : sizeof(host));
		if (end != NULL)
			port = end + 1;
	}
	if (port != NULL) {
		errno = 0;
		p = strtoul(port, &pend, 10);
		if (port[0] < '0' || port[0] > '9' || *pend != '\0' || errno != 0 ||
		    p == 0 || p > UINT16_MAX)
			return -EINVAL;
	}
	if (s[0] != '[' && inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		((struct sockaddr_in *)ss)->sin_family = AF_INET;
		((struct sockaddr_in *)ss)->sin_port = htons(p);
		*len = sizeof(struct sockaddr_in);
		return 0;
	}
	if (s[0] == '[' &&
	    inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)ss)->sin6_port = htons(p);
		*len = sizeof(struct sockaddr_in6);
		return 0;
	}
	return -EINVAL;
}

/* The devargs' bound (the seam's) is the header's. */
_Static_assert(REFNIC_VXLAN_VNI_MAX == REFNIC_EMU_CABLE_VXLAN_VNI_MAX, "VNI bounds differ");

bool
refnic_emu_cable_vxlan_addr_valid(const char *s)
{
	struct sockaddr_storage ss;
	socklen_t len;

	return vxlan_parse_addr(s, REFNIC_VXLAN_PORT, &ss, &len) == 0;
}

/* The remote's address, whatever its source port (it hashes flows too). */
static bool
vxlan_from_remote(const struct vxlan_cable *vc, const struct sockaddr_storage *from)
{
	if (from->ss_family != vc->remote.ss_family)
		return false;
	if (from->ss_family == AF_INET)
		return ((const struct sockaddr_in *)from)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)&vc->remote)->sin_addr.s_addr;
	return memcmp(&((const struct sockaddr_in6 *)from)->sin6_addr,
		      &((const struct sockaddr_in6 *)&vc->remote)->sin6_addr,
		      sizeof(struct in6_addr)) == 0;
}

/*
 * The inner flow's hash, as a receiver's RSS would take it: IP addresses,
 * protocol and ports when there are some, else the Ethernet header.
 */
static uint16_t
vxlan_source_port(const uint8_t *fr, uint32_t len)
{
	struct refnic_pkt_hdrs h;
	uint32_t key_len, addr_len;
	uint8_t key[40];

	if (len < EMU_ETH_HLEN)
		return REFNIC_VXLAN_SPORT_BASE;
	refnic_emu_svc_parse(fr, len, &h);
	if (h.ip_version == 0) {
		memcpy(key, fr, EMU_ETH_HLEN);
		key_len = EMU_ETH_HLEN;
	} else {
		/* Source and destination addresses, side by side in both. */
		addr_len = h.ip_version == 4 ? 8 : 32;
		memcpy(key, fr + h.l3 + (h.ip_version == 4 ? 12 : 8), addr_len);
		key_len = addr_len;
		key[key_len++] = h.proto;
		/* Fragments have no ports to trust. */
		if (!h.frag && (h.proto == EMU_IPPROTO_TCP || h.proto == EMU_IPPROTO_UDP ||
				h.proto == 132) && len >= h.l4 + 4) {
			memcpy(key + key_len, fr + h.l4, 4);
			key_len += 4;
		}
	}
	return REFNIC_VXLAN_SPORT_BASE +
	       (rte_jhash(key, key_len, 0) % (65536 - REFNIC_VXLAN_SPORT_BASE));
}

/*
 * The burst's datagrams, in order. sendmmsg() stops at the first it cannot
 * send and keeps the error for the next call: that datagram is counted and
 * skipped, the rest go on.
 */
static void
vxlan_tx_burst(struct vxlan_cable *vc, struct refnic_emu *emu)
{
	unsigned int i = 0;
	int n;

	while (i < vc->tx_n) {
		n = sendmmsg(vc->tx_fd, &vc->tx.msg[i], vc->tx_n - i, MSG_DONTWAIT);
		if (n > 0) {
			i += n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		/* Above the path MTU (the socket does not fragment); else the
		 * kernel refused it (no route, buffer full): lost, as on a wire. */
		if (n < 0 && errno == EMSGSIZE)
			refnic_emu_svc_stats(emu)->cable_tx_oversize++;
		else
			refnic_emu_svc_stats(emu)->cable_tx_dropped++;
		i++;
	}
	vc->tx_n = 0;
}

static void
vxlan_tx(struct refnic_emu_cable *c, struct refnic_emu *emu, const struct refnic_frame *f,
	 struct refnic_rx_batch *b __rte_unused)
{
	struct vxlan_cable *vc = (struct vxlan_cable *)c;
	struct vxlan_udp_hdr *udp;
	uint8_t *slot;
	uint32_t off;
	uint16_t s;

	if (vc->unplugged) {
		refnic_emu_svc_stats(emu)->cable_tx_dropped++;
		return;
	}
	/* Longer than any frame a peer's port takes: not sent, never cut. */
	if (f->len > REFNIC_MAX_FRAME_LEN) {
		refnic_emu_svc_stats(emu)->cable_tx_oversize++;
		return;
	}
	rte_spinlock_lock(&vc->tx_lock);
	slot = vc->tx.buf[vc->tx_n];
	off = VXLAN_UDP_HLEN + REFNIC_VXLAN_HLEN;
	for (s = 0; s < f->nb_segs; s++) {
		memcpy(slot + off, f->seg[s], f->seg_len[s]);
		off += f->seg_len[s];
	}
	memcpy(slot + VXLAN_UDP_HLEN, &vc->hdr, REFNIC_VXLAN_HLEN);
	/* The UDP header, for the raw socket: checksum 0 (IPv4) or the
	 * kernel's (IPv6). The UDP socket writes its own. */
	udp = (struct vxlan_udp_hdr *)slot;
	udp->sport = htons(vxlan_source_port(slot + off - f->len, f->len));
	udp->dport = vc->remote.ss_family == AF_INET ?
		     ((struct sockaddr_in *)&vc->remote)->sin_port :
		     ((struct sockaddr_in6 *)&vc->remote)->sin6_port;
	udp->len = htons(off);
	udp->csum = 0;
	vc->tx.iov[vc->tx_n].iov_base = slot + vc->tx_off;
	vc->tx.iov[vc->tx_n].iov_len = off - vc->tx_off;
	if (++vc->tx_n == VXLAN_BURST)
		vxlan_tx_burst(vc, emu);
	rte_spinlock_unlock(&vc->tx_lock);
}

static void
vxlan_tx_flush(struct refnic_emu_cable *c, struct refnic_emu *emu,
	       struct refnic_rx_batch *b __rte_unused)
{
	struct vxlan_cable *vc = (struct vxlan_cable *)c;

	if (__atomic_load_n(&vc->tx_n, __ATOMIC_RELAXED) == 0)
		return;
	rte_spinlock_lock(&vc->tx_lock);
	vxlan_tx_burst(vc, emu);
	rte_spinlock_unlock(&vc->tx_lock);
}

static void
vxlan_count_refusal(struct refnic_emu *emu, enum refnic_vxlan_verdict v)
{
	struct refnic_hw_stats *st = refnic_emu_svc_stats(emu);

	switch (v) {
	case REFNIC_VXLAN_TRUNCATED:
		st->cable_rx_truncated++;
		break;
	case REFNIC_VXLAN_BAD_HEADER:
		st->cable_rx_bad_header++;
		break;
	case REFNIC_VXLAN_BAD_VNI:
		st->cable_rx_bad_vni++;
		break;
	default:
		st->cable_rx_oversize++;
		break;
	}
}

/*
 * Datagrams the kernel dropped because the socket's queue was full (the
 * engine was late) were not taken by the port: cable_rx_dropped. Drops
 * only happen while the queue is full, so reading the socket's count when
 * it drains finds them all.
 */
static void
vxlan_count_overflows(struct vxlan_cable *vc, struct refnic_emu *emu)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	if (getsockopt(vc->fd, SOL_SOCKET, SO_MEMINFO, mem, &len) != 0 ||
	    len <= SK_MEMINFO_DROPS * sizeof(mem[0]))
		return;
	refnic_emu_svc_stats(emu)->cable_rx_dropped +=
		(uint32_t)(mem[SK_MEMINFO_DROPS] - vc->rx_overflows);
	vc->rx_overflows = mem[SK_MEMINFO_DROPS];
}

static unsigned int
vxlan_rx_service(struct refnic_emu_cable *c, struct refnic_emu *emu, uint64_t now __rte_unused)
{
	struct vxlan_cable *vc = (struct vxlan_cable *)c;
	struct refnic_rx_batch batch = { .held = NULL };
	struct refnic_frame f = { .nb_segs = 1 };
	enum refnic_vxlan_verdict v;
	struct mmsghdr *m;
	int n, i;

	for (i = 0; i < VXLAN_BURST; i++) {
		vc->rx.msg[i].msg_hdr.msg_namelen = sizeof(vc->rx.from[i]);
		vc->rx.msg[i].msg_hdr.msg_flags = 0;
	}
	n = recvmmsg(vc->fd, vc->rx.msg, VXLAN_BURST, MSG_DONTWAIT, NULL);
	/* The queue drained: whatever it dropped while full is known now. */
	if (n > 0 && n < VXLAN_BURST)
		vxlan_count_overflows(vc, emu);
	for (i = 0; i < n; i++) {
		m = &vc->rx.msg[i];
		if (!vxlan_from_remote(vc, &vc->rx.from[i])) {
			refnic_emu_svc_stats(emu)->cable_rx_foreign++;
			continue;
		}
		v = refnic_emu_cable_vxlan_check(vc->rx.buf[i], m->msg_len,
				       (m->msg_hdr.msg_flags & MSG_TRUNC) != 0, vc->vni,
				       REFNIC_MAX_FRAME_LEN);
		if (v != REFNIC_VXLAN_OK) {
			vxlan_count_refusal(emu, v);
			continue;
		}
		if (vc->unplugged) {
			refnic_emu_svc_stats(emu)->cable_rx_dropped++;
			continue;
		}
		f.len = m->msg_len - REFNIC_VXLAN_HLEN;
		f.seg[0] = vc->rx.buf[i] + REFNIC_VXLAN_HLEN;
		f.seg_len[0] = f.len;
		/* Copied into posted buffers here: the slot is free again. */
		refnic_emu_svc_rx_frame(emu, &f, &batch);
	}
	refnic_emu_svc_rx_batch_end(&batch);
	return n > 0 ? n : 0;
}

static bool
vxlan_link_up(const struct refnic_emu_cable *c, const struct refnic_emu *emu __rte_unused)
{
	return !((const struct vxlan_cable *)c)->unplugged;
}

static void
vxlan_set_plugged(struct refnic_emu_cable *c, struct refnic_emu *emu, bool plugged)
{
	((struct vxlan_cable *)c)->unplugged = !plugged;
	refnic_emu_svc_update_link(emu);
}

/* Datagrams make the socket readable: that wakes the engine. */
static int
vxlan_doze_prepare(struct refnic_emu_cable *c)
{
	return ((struct vxlan_cable *)c)->fd;
}

static void
vxlan_detach(struct refnic_emu_cable *c, struct refnic_emu *emu __rte_unused)
{
	struct vxlan_cable *vc = (struct vxlan_cable *)c;

	if (vc->tx_fd != vc->fd)
		close(vc->tx_fd);
	close(vc->fd);
	free(vc);
}

static int vxlan_attach(struct refnic_emu *emu, const char *spec, struct refnic_emu_cable **out);

const struct refnic_emu_cable_ops refnic_emu_cable_vxlan_ops = {
	.prefix = REFNIC_EMU_CABLE_VXLAN_PREFIX,
	.addr_valid = refnic_emu_cable_vxlan_addr_valid,
	.attach = vxlan_attach,
	.brings_frames = true,
	.tx = vxlan_tx,
	.tx_flush = vxlan_tx_flush,
	.rx_service = vxlan_rx_service,
	.link_up = vxlan_link_up,
	.set_plugged = vxlan_set_plugged,
	.doze_prepare = vxlan_doze_prepare,
	.detach = vxlan_detach,
};

/* The bursts' fixed parts: each message one slot, TX to the remote. */
static void
vxlan_burst_init(struct vxlan_cable *vc, struct vxlan_burst *bu, bool tx)
{
	unsigned int i;

	for (i = 0; i < VXLAN_BURST; i++) {
		bu->iov[i] = (struct iovec){ .iov_base = bu->buf[i], .iov_len = VXLAN_SLOT_LEN };
		bu->msg[i].msg_hdr = (struct msghdr){
			.msg_iov = &bu->iov[i],
			.msg_iovlen = 1,
			.msg_name = tx ? (void *)&vc->tx_to : (void *)&bu->from[i],
			.msg_namelen = tx ? vc->remote_len : sizeof(bu->from[i]),
		};
	}
}

static int
vxlan_socket(struct refnic_emu *emu, struct vxlan_cable *vc, const char *spec)
{
	const char *local_spec = emu->params.vxlan_local;
	struct sockaddr_storage local;
	socklen_t local_len;
	int one = 1, size = VXLAN_SOCKBUF, pmtu;

	if (local_spec[0] == '\0') {
		/* Any address of the remote's family, IANA's port. */
		memset(&local, 0, sizeof(local));
		local.ss_family = vc->remote.ss_family;
		if (local.ss_family == AF_INET) {
			((struct sockaddr_in *)&local)->sin_port = htons(REFNIC_VXLAN_PORT);
			local_len = sizeof(struct sockaddr_in);
		} else {
			((struct sockaddr_in6 *)&local)->sin6_port = htons(REFNIC_VXLAN_PORT);
			local_len = sizeof(struct sockaddr_in6);
		}
	} else if (vxlan_parse_addr(local_spec, REFNIC_VXLAN_PORT, &local, &local_len) != 0 ||
		   local.ss_family != vc->remote.ss_family) {
		EMU_LOG(ERR, "%s: cable vxlan:%s: vxlan_local=%s is not an address:port of "
			"the remote's family", emu->name, spec, local_spec);
		return -EINVAL;
	}
	vc->fd = socket(local.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (vc->fd < 0)
		goto fail;
	/* A VTEP never fragments: a datagram over the path MTU is refused
	 * (EMSGSIZE), counted as cable_tx_oversize. */
	pmtu = local.ss_family == AF_INET ? IP_PMTUDISC_DO : IPV6_PMTUDISC_DO;
	/* No SO_REUSEADDR: a second port on the same address and port would
	 * take some of the first's datagrams; its bind fails instead. */
	if ((local.ss_family == AF_INET ?
	     setsockopt(vc->fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) :
	     setsockopt(vc->fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &pmtu, sizeof(pmtu))) != 0 ||
	    (local.ss_family == AF_INET6 &&
	     setsockopt(vc->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0))
		goto fail;
	/* Larger than the default: the engine may doze a little late. Beyond
	 * net.core.rmem_max where allowed (CAP_NET_ADMIN); else capped. */
	if (setsockopt(vc->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) != 0)
		(void)setsockopt(vc->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	(void)setsockopt(vc->fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	if (bind(vc->fd, (struct sockaddr *)&local, local_len) != 0)
		goto fail;
	return 0;
fail:
	EMU_LOG(ERR, "%s: cable vxlan:%s: cannot open its UDP socket%s%s: %s", emu->name, spec,
		local_spec[0] != '\0' ? " on " : "", local_spec, strerror(errno));
	return -errno;
}

/*
 * The raw socket that sends with the hashed source ports: it would also
 * receive a copy of every UDP datagram of the host, so it takes none.
 */
static void
vxlan_tx_socket(struct refnic_emu *emu, struct vxlan_cable *vc, const char *spec)
{
	static struct sock_filter none[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct sock_fprog prog = { .len = RTE_DIM(none), .filter = none };
	int family = vc->remote.ss_family, fd, pmtu, csum_off = 6, size = VXLAN_SOCKBUF;

	vc->tx_to = vc->remote;
	fd = socket(family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
	pmtu = family == AF_INET ? IP_PMTUDISC_DO : IPV6_PMTUDISC_DO;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) != 0 ||
	    (family == AF_INET &&
	     setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) != 0) ||
	    (family == AF_INET6 &&
	     (setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &pmtu, sizeof(pmtu)) != 0 ||
	      setsockopt(fd, IPPROTO_IPV6, IPV6_CHECKSUM, &csum_off, sizeof(csum_off)) != 0))) {
		EMU_LOG(NOTICE, "%s: cable vxlan:%s: no raw socket (%s): every datagram "
			"goes from the local port, not from a port hashed per flow",
			emu->name, spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		vc->tx_fd = vc->fd;
		vc->tx_off = VXLAN_UDP_HLEN;
		return;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	/* A raw socket's "port" is its protocol: 0 says "the socket's". */
	if (family == AF_INET)
		((struct sockaddr_in *)&vc->tx_to)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&vc->tx_to)->sin6_port = 0;
	vc->tx_fd = fd;
	vc->tx_off = 0;
}

static int
vxlan_attach(struct refnic_emu *emu, const char *spec, struct refnic_emu_cable **out)
{
	struct vxlan_cable *vc;
	int ret;

	vc = calloc(1, sizeof(*vc));
	if (vc == NULL)
		return -ENOMEM;
	vc->fd = -1;
	vc->tx_fd = -1;
	vc->vni = emu->params.vxlan_vni;
	refnic_emu_cable_vxlan_hdr_init(&vc->hdr, vc->vni);
	rte_spinlock_init(&vc->tx_lock);
	if (vxlan_parse_addr(spec, REFNIC_VXLAN_PORT, &vc->remote, &vc->remote_len) != 0) {
		EMU_LOG(ERR, "%s: cable vxlan:%s: expected vxlan:IPV4[:PORT] or "
			"vxlan:[IPV6][:PORT]", emu->name, spec);
		ret = -EINVAL;
		goto fail;
	}
	ret = vxlan_socket(emu, vc, spec);
	if (ret != 0)
		goto fail;
	vxlan_tx_socket(emu, vc, spec);
	vxlan_burst_init(vc, &vc->tx, true);
	vxlan_burst_init(vc, &vc->rx, false);
	EMU_LOG(INFO, "%s: cable vxlan:%s vni %u", emu->name, spec, vc->vni);
	*out = &vc->c;
	return 0;
fail:
	if (vc->fd >= 0)
		close(vc->fd);
	free(vc);
	return ret;
}
