/* mdir.h: find a model's files from a folder or a HuggingFace repo id. */
#ifndef MDIR_H
#define MDIR_H

/* The model used when none is named: Karpathy's tinyllamas stories260K,
 * carried in the tree under share/pipelm and installed with the
 * programs. */
#define MDIR_BUILTIN "stories260K"
#ifndef PIPELM_DATADIR
#define PIPELM_DATADIR "/usr/local/share/pipelm"
#endif

struct mdir {				/* all malloc'd paths, freed by mdir_free */
	char *dir;			/* the model folder */
	int builtin;			/* it is the built-in model */
	char *config;			/* DIR/config.json; NULL if absent
					 * (mdir_resolve_tokenizer only) */
	char *genconfig;		/* DIR/generation_config.json, NULL if absent */
	char *weights;			/* DIR/model.safetensors, else the index;
					 * NULL if neither (a tokenizer-only
					 * folder): st_open(m.dir) then says
					 * what is missing */
	char *tokenizer;		/* DIR/tokenizer.json, NULL if absent */
	char *gguf;			/* the GGUF file when the model is one
					 * (a file path, or ORG/NAME:QUANT);
					 * dir is its folder, config and
					 * weights NULL */
};

/* arg: a folder, or ORG/NAME (when no such folder exists) looked up in the
 * HuggingFace cache: $HF_HUB_CACHE, else $HF_HOME/hub, else
 * ~/.cache/huggingface/hub, folder models--ORG--NAME/snapshots/REV/ with REV
 * from refs/main, else the newest snapshot.  NULL means $PIPELM_MODEL,
 * and when that is unset or empty, the built-in model.  Only config.json
 * is required.  Fills m and returns 0, or returns -1 after error() ("X:
 * no config.json", "ORG/NAME: not in the HuggingFace cache (DIR)", ...);
 * m is then safe to mdir_free. */
int mdir_resolve(struct mdir *m, const char *arg);
/* The same for a tokenizer: only tokenizer.json is required (a
 * tokenizer-only folder has no config.json and no weights). */
int mdir_resolve_tokenizer(struct mdir *m, const char *arg);
/* Free m's paths; accepts a zeroed m. */
void mdir_free(struct mdir *m);

#endif
