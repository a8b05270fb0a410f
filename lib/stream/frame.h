/* frame.h: logits frames, the stream from llm-logits to llm-sample.
 *
 * Formats (see pipelm-formats(5) and llm-logits(1)):
 *  bin   per frame a 32-byte little-endian header, magic "PLGT", u16
 *        version 1, u16 flags, u32 vocab, u32 record, u32 position, i32
 *        token, u32 reserved (0), u32 reserved (0); then vocab float32.
 *  text  one line per frame: vocab numbers "%.9g" separated by spaces.
 *  top   one line per frame: K pairs "id:logit" best first (ties: lower
 *        id first); write only.
 *  npy   one 2-D float32 array frames x vocab, .npy version 1.0 with a
 *        128-byte header; needs a seekable file; write only.
 * A reader tells bin from text by the first byte of the stream. */
#ifndef FRAME_H
#define FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FRAME_MAGIC "PLGT"
#define FRAME_VERSION 1
#define FRAME_HDRSIZE 32
#define FRAME_MAXVOCAB (1 << 24)	/* larger vocab is refused as hostile */

enum frame_fmt { FRAME_BIN, FRAME_TEXT, FRAME_TOP, FRAME_NPY };

/* What a frame says about itself besides its logits.  Only bin frames
 * carry these on the wire; a text reader fills vocab, record (1-based line
 * number) and sets the others to 0 (token to -1). */
struct frame_hdr {
	uint32_t vocab;		/* number of logits */
	uint32_t record;	/* input record the frame belongs to */
	uint32_t position;	/* position in the sequence of that token */
	int32_t token;		/* input token at that position, -1 if none */
	uint16_t flags;		/* none defined yet: written as given */
};

struct frame_writer {
	FILE *f;
	const char *name;	/* for messages, e.g. "<stdout>" */
	enum frame_fmt fmt;
	int vocab, topk;
	unsigned long long nframes;	/* frames written so far */
	int *idx;		/* top: vocab scratch indices */
	unsigned char *buf;	/* bin: header + byte-swapped floats */
	size_t bufsize;
	long long npystart;	/* npy: offset of the header in f */
};

/* Parse "bin", "text", "top" or "npy" into *f: 0, or -1 if none of them
 * (no message). */
int frame_parse_fmt(const char *s, enum frame_fmt *f);

/* Start writing frames of vocab logits to f (named name in messages).
 * topk is the number of pairs per frame for FRAME_TOP (clamped to vocab,
 * at least 1), ignored otherwise.  bin and npy are refused on a terminal
 * ("binary frames to a terminal: use -f text"); npy needs a seekable f,
 * not in append mode, and writes its header now (patched by
 * frame_writer_close).  w is filled in; release it with
 * frame_writer_close (also after a failed open).  0, or -1 after error(). */
int frame_writer_open(struct frame_writer *w, FILE *f, const char *name,
    enum frame_fmt fmt, int vocab, int topk);
/* Write one frame (h->vocab is ignored: w->vocab logits are written).
 * Does not flush: the caller fflush()es where it must (pipelines).
 * 0, or -1 on a write error (after error(), quiet for EPIPE) or a logit
 * that is not finite (after error() naming the record and position:
 * nothing of that frame is written). */
int frame_write(struct frame_writer *w, const struct frame_hdr *h,
    const float *logits);
/* Finish: npy patches the frame count into its header.  Frees w's
 * buffers (always; w may be zeroed).  Does not close or flush f beyond
 * what npy needs.  0, or -1 after error(). */
int frame_writer_close(struct frame_writer *w);

struct frame_reader {
	int known;		/* 0 until the first byte is seen */
	enum frame_fmt fmt;	/* then FRAME_BIN or FRAME_TEXT */
	uint32_t vocab;		/* 0 until the first frame */
	unsigned long long no;	/* 1-based number of the frame last read */
	float *logits;		/* vocab floats */
	unsigned char *buf;	/* bin: raw frame bytes; text: the line */
	size_t bufsize, cap;
};

/* Read the next frame from f (named name in messages) into h and
 * *logits, which points into r's buffer until the next call.  r starts
 * zeroed.  The format is decided by the first byte
 * of the stream: 'P' means bin, anything a number can start with means
 * text.  Reads exactly one frame (32 + 4 * vocab bytes, or one line) and
 * no further, so it can sit in a feedback loop through a FIFO.  Returns 1
 * for a frame, 0 at the end of input (between frames), -1 after error():
 * bad magic or version, vocab 0, too large or changing mid-stream,
 * truncated frame, non-finite logits, malformed text, read error. */
int frame_read(struct frame_reader *r, FILE *f, const char *name,
    struct frame_hdr *h, const float **logits);
/* Release r's buffers; r may be zeroed. */
void frame_reader_free(struct frame_reader *r);

#endif
