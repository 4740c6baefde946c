#include "wire.h"

#include "io.h"

#include <errno.h>
#include <string.h>

struct header {
    uint32_t type;
    uint32_t len;
};

#define GAME_PAYLOAD_MAX (2 + GAME_CELLS + GAME_CELLS * GAME_CELLS)

/* One write per message: the header and payload go out together. */
static int send_msg(int fd, uint32_t type, const void *payload, uint32_t len) {
    unsigned char buf[sizeof(struct header) + GAME_PAYLOAD_MAX];
    struct header h = {type, len};
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, payload, len);
    return io_write_all(fd, buf, sizeof h + len);
}

int wire_send_request(int fd) {
    unsigned char one = 1;
    return io_write_all(fd, &one, 1);
}

int wire_recv_request(int fd) {
    unsigned char b;
    ssize_t n = io_read_all(fd, &b, 1);
    if (n <= 0)
        return (int)n;
    if (b != 1) {
        errno = EPROTO;
        return -1;
    }
    return 1;
}

int wire_send_game(int fd, const wire_game *g) {
    unsigned char p[GAME_PAYLOAD_MAX];
    size_t n = 0;
    p[n++] = g->plies;
    p[n++] = g->winner;
    memcpy(p + n, g->move, g->plies);
    n += g->plies;
    memcpy(p + n, g->position, (size_t)g->plies * GAME_CELLS);
    n += (size_t)g->plies * GAME_CELLS;
    return send_msg(fd, WIRE_GAME, p, (uint32_t)n);
}

int wire_send_done(int fd, const wire_done *d) {
    return send_msg(fd, WIRE_DONE, d, sizeof *d);
}

static int parse_game(const unsigned char *p, uint32_t len, wire_game *g) {
    if (len < 2 || p[0] > GAME_CELLS || len != 2u + p[0] * (1u + GAME_CELLS) || p[1] > 2)
        return -1;
    g->plies = p[0];
    g->winner = p[1];
    memcpy(g->move, p + 2, g->plies);
    memcpy(g->position, p + 2 + g->plies, (size_t)g->plies * GAME_CELLS);
    for (int i = 0; i < g->plies; i++)
        if (g->move[i] >= GAME_COLS)
            return -1;
    return 0;
}

int wire_recv(int fd, wire_msg *m) {
    struct header h;
    unsigned char p[GAME_PAYLOAD_MAX];
    ssize_t n = io_read_all(fd, &h, sizeof h);
    if (n <= 0)
        return (int)n;
    if ((size_t)n < sizeof h || h.len > GAME_PAYLOAD_MAX)
        goto malformed;
    n = io_read_all(fd, p, h.len);
    if (n < 0)
        return -1;
    if ((size_t)n < h.len)
        goto malformed;
    if (h.type == WIRE_GAME && parse_game(p, h.len, &m->u.game) == 0) {
        m->type = WIRE_GAME;
        return WIRE_GAME;
    }
    if (h.type == WIRE_DONE && h.len == sizeof m->u.done) {
        memcpy(&m->u.done, p, sizeof m->u.done);
        m->type = WIRE_DONE;
        return WIRE_DONE;
    }
malformed:
    errno = EPROTO;
    return -1;
}
