/* errors.h — the one list of Vivarium's error codes: every folder's, in one space, as libuv's
 * uv-errno.h holds every UV_E… code. Each folder (each space of wire/) has a range of its own,
 * so that a code means one thing however far it travels, and one function, sim_strerror
 * (errors.c), names any code of any folder.
 *
 *   range          folder     codes           what returns them
 *   -1 .. -99      sim/       SIM_E…          sim.h; the values are fixed: the web page
 *                                             (clients/web/sim.js, tests/wasm) compares them
 *   -101 .. -199   server/    SRV_E…          host.h, network.h
 *   -201 .. -299   replay/    RPL_E…          replay.h, read.h, files.h
 *   -301 .. -329   wire/      WIRE_E…         msgpack decoding (wire.h)
 *   -331 .. -359   wire/      WIRE_FRAME_E…   reading a frame message (msg.h, wire_frame_apply)
 *   -361 .. -399   wire/      CODEC_E…        frame data (codec.h)
 *   -401 .. -499   clients/   CLI_E…          net.h, websocket.h
 *   pool/ has no codes: pool_create and pool_parse_workers return -1 with a sentence in err, and
 *   no caller passes that -1 on.
 *
 * A function's contract says which codes it returns; one that passes on another folder's code
 * says so (cli_frame_apply: wire_frame_apply's WIRE_FRAME_E…). A layer that turns a lower
 * layer's failure into one of its own translates the code where the call is (srv_world_new:
 * SIM_EKIND → SRV_EKIND; srv_world_input: SIM_EFULL → SRV_EFULL; rpl_sim_error), and keeps the
 * lower layer's sentence in its err buffer when that says more.
 *
 * Not codes, and never handed to sim_strerror: 0 (success: SIM_OK, SRV_OK, … in each folder's
 * header); positive results (counts, CLI_RECV_MSG, 1 for "none there"); indexes and their -1
 * "not found"; the -1 "failed, the sentence is in err" of functions that have no codes (pool/,
 * clients/cli_common.c, a sim_file_reader may return anything negative); and the typed getters
 * of wire.h, whose -1 (absent) and -2 (present, wrong type) the caller branches on at once.
 *
 * A code is never renumbered once given out; a new one takes the next free value of its range.
 * Its sentence is short and fixed, and says what kind of failure it is (every sentence its own):
 * what was wrong this time goes in the caller's err buffer, or the world's sim_world_error.
 *
 * An X-macro, as kinds.h: a file that needs the list defines SIM_ERROR_RANGE(first, last,
 * prefix) and SIM_ERROR(name, value, sentence), includes this file, and gets one expansion per
 * line: sim.h the enum, errors.c the sentences, tests/check_errors.c its checks. No include
 * guard: it is meant to be included more than once. */
#if !defined(SIM_ERROR) || !defined(SIM_ERROR_RANGE)
#error "define SIM_ERROR(name, value, sentence) and SIM_ERROR_RANGE(first, last, prefix) first"
#endif

/* ---- sim/ (sim.h) ---------------------------------------------------------------------------- */
SIM_ERROR_RANGE(-1, -99, "SIM_E")
SIM_ERROR(SIM_EINVAL, -1, "invalid argument")          /* a bad argument from the caller */
SIM_ERROR(SIM_ENOMEM, -2, "out of memory")             /* allocation failed at create/load time */
SIM_ERROR(SIM_EKIND, -3, "unknown world kind")
SIM_ERROR(SIM_EPARAM, -4, "bad world params")          /* bad params text */
SIM_ERROR(SIM_EINPUT, -5, "bad input")                 /* unknown kind, argument count or range */
SIM_ERROR(SIM_ETICK, -6, "input is not for the next tick")
SIM_ERROR(SIM_EFULL, -7, "input queue full for this tick")
SIM_ERROR(SIM_EMAGIC, -8, "not a saved Vivarium world")
SIM_ERROR(SIM_EVERSION, -9, "saved by an unsupported format or state version")
SIM_ERROR(SIM_EWRONGKIND, -10, "saved state belongs to another world kind")
SIM_ERROR(SIM_ETRUNC, -11, "saved state is truncated or has the wrong length")
/* the bytes decode but describe an impossible state */
SIM_ERROR(SIM_ECORRUPT, -12, "saved state is corrupt")
SIM_ERROR(SIM_ENOSPC, -13, "buffer too small")         /* an output buffer */
/* an input with the same (client, seq) is already queued */
SIM_ERROR(SIM_EDUP, -14, "duplicate input (client, seq)")
/* missing, unreadable or invalid */
SIM_ERROR(SIM_EFILE, -15, "the file the world is built from cannot be used")

/* ---- server/ (host.h) ------------------------------------------------------------------------ */
SIM_ERROR_RANGE(-101, -199, "SRV_E")
SIM_ERROR(SRV_ENOMEM, -101, "the server is out of memory")
/* SRV_MAX_WORLDS */
SIM_ERROR(SRV_ELIMIT, -102, "the server already hosts the most worlds it may")
SIM_ERROR(SRV_EKIND, -103, "the server cannot host a world of an unknown kind")
SIM_ERROR(SRV_EPARAM, -104, "bad params text")
SIM_ERROR(SRV_EFILE, -105, "a file the world is built from is missing, unreadable or invalid")
/* for another reason than those above */
SIM_ERROR(SRV_EWORLD, -106, "the world could not be created")
/* more inputs for one tick than a buffer holds: the tick is refused */
SIM_ERROR(SRV_ETOOMANY, -107,
          "more inputs for one tick than the log can take; the tick is not logged")
SIM_ERROR(SRV_ELOG, -108, "the replay log cannot be opened or written")
/* a play control sent to a live world */
SIM_ERROR(SRV_ENOTREC, -109, "the world is live, not a recording")
/* a play control that does not apply now, or a recording that cannot be played */
SIM_ERROR(SRV_EPLAY, -110, "the recording cannot do that now")
SIM_ERROR(SRV_EINVAL, -111, "bad argument to the server")
SIM_ERROR(SRV_EBUSY, -112, "the world is held by a worker: a seek is in progress")
/* srv_world_input: the world's SIM_EFULL, SIM_EDUP and SIM_EINPUT in the host's terms */
SIM_ERROR(SRV_EFULL, -113, "the world's input queue for its next tick is full")
SIM_ERROR(SRV_EDUP, -114, "an input with the same (client, seq) is already queued")
/* a bad kind, argument count or range */
SIM_ERROR(SRV_EINPUT, -115, "the world refuses the input")

/* ---- replay/ (replay.h) ---------------------------------------------------------------------- */
SIM_ERROR_RANGE(-201, -299, "RPL_E")
/* not a usable replay file: missing, not SQLite, damaged, another app, newer schema */
SIM_ERROR(RPL_EFILE, -201, "not a usable replay file")
/* SQLite failed on a usable file: I/O error, disk full, locked */
SIM_ERROR(RPL_EDB, -202, "the replay file could not be read or written (SQLite failed)")
SIM_ERROR(RPL_ENOMEM, -203, "out of memory recording, reading or exporting a replay")
/* a PNG or GIF (or the directory for them) could not be written */
SIM_ERROR(RPL_EIMAGE, -204, "the image could not be written")
/* the session asked for is not in the file, or the file holds none */
SIM_ERROR(RPL_ENOSESSION, -205, "session not found")
/* no output named, a scale or view out of range, a tick range with nothing to replay, several
 * sessions and none picked */
SIM_ERROR(RPL_EUSAGE, -206, "bad replay request")
/* a session row (kind name, tick rate, tick range), a checkpoint (hash, blob, compression, its
 * world), an input row, a gap row, a checkpoint a session must have but lacks */
SIM_ERROR(RPL_ECORRUPT, -207, "a recorded row or checkpoint is damaged")
SIM_ERROR(RPL_EKIND, -208, "the session's world kind is not in this build")
/* no world can be built for the session, or the world refuses the saved state although its hash
 * matches; or (the recorder) a world's state cannot be saved */
SIM_ERROR(RPL_ESTATE, -209, "a recorded state does not load")
/* while replaying (not a damaged row) */
SIM_ERROR(RPL_EINPUT, -210, "the world refuses a recorded input")
/* writes failed, or its queue is full: a tick was not queued, or a flush found ticks that were
 * not written */
SIM_ERROR(RPL_EFAILING, -211, "the recorder is failing: ticks were not logged")
/* a file the user named: missing, unreadable, too large */
SIM_ERROR(RPL_EREAD, -212, "a file could not be read")

/* ---- wire/: msgpack (wire.h) ----------------------------------------------------------------- */
SIM_ERROR_RANGE(-301, -329, "WIRE_E")
/* (WIRE_MAX_KEYS and WIRE_MAX_DEPTH, which the sentences name: wire.c checks they still say so) */
SIM_ERROR(WIRE_EMSGPACK, -301, "malformed msgpack: truncated, a length or count larger than the "
                               "message, an unused type byte (0xc1), or bytes after the value")
SIM_ERROR(WIRE_ENOTMAP, -302, "a message must be a msgpack map of string keys to values")
SIM_ERROR(WIRE_ETOOMANY, -303, "a message map must have at most 24 keys, all of them strings")
SIM_ERROR(WIRE_EDEPTH, -304, "msgpack nested deeper than 8 arrays/maps")

/* ---- wire/: a frame message (msg.h) ---------------------------------------------------------- */
SIM_ERROR_RANGE(-331, -359, "WIRE_FRAME_E")
/* a field missing or mistyped, a size out of range, data that does not decode */
SIM_ERROR(WIRE_FRAME_EPROTO, -331, "a frame message is malformed or its data does not decode")
SIM_ERROR(WIRE_FRAME_EHASH, -332, "a rebuilt frame does not match its frame hash")
SIM_ERROR(WIRE_FRAME_ENOKEY, -333, "a delta arrived before any keyframe")   /* of its size */

/* ---- wire/: frame data (codec.h) ------------------------------------------------------------- */
SIM_ERROR_RANGE(-361, -399, "CODEC_E")
SIM_ERROR(CODEC_EDATA, -361, "frame data is malformed or truncated")
SIM_ERROR(CODEC_ESIZE, -362, "a frame size outside 1..4096")
SIM_ERROR(CODEC_ENOMEM, -363, "out of memory encoding a frame")

/* ---- clients/ (net.h) ------------------------------------------------------------------------ */
SIM_ERROR_RANGE(-401, -499, "CLI_E")
/* cannot connect, send or receive, the server closed the connection, or its message breaks the
 * protocol (the err text says which) */
SIM_ERROR(CLI_EPROTO, -401, "the connection failed, or the server's message breaks the protocol")
/* cli_lookup (getaddrinfo's code says why) */
SIM_ERROR(CLI_ERESOLVE, -402, "the host name does not resolve")
