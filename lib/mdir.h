/* mdir.h: find a model's files from a folder or a HuggingFace repo id. */
#ifndef MDIR_H
#define MDIR_H

struct mdir {				/* all malloc'd paths, freed by mdir_free */
	char *dir;			/* the model folder */
	char *config;			/* DIR/config.json */
	char *genconfig;		/* DIR/generation_config.json, NULL if absent */
	char *weights;			/* DIR/model.safetensors, else the index;
					 * NULL if neither (a tokenizer-only
					 * folder): st_open(m.dir) then says
					 * what is missing */
	char *tokenizer;		/* DIR/tokenizer.json, NULL if absent */
};

/* arg: a folder, or ORG/NAME (when no such folder exists) looked up in the
 * HuggingFace cache: $HF_HUB_CACHE, else $HF_HOME/hub, else
 * ~/.cache/huggingface/hub, folder models--ORG--NAME/snapshots/REV/ with REV
 * from refs/main, else the newest snapshot.  NULL means $PIPELM_MODEL.
 * Only config.json is required.  Fills m and returns 0, or returns -1
 * after error() ("no model: use -m or set PIPELM_MODEL", "X: no
 * config.json", "ORG/NAME: not in the HuggingFace cache (DIR)", ...); m is
 * then safe to mdir_free. */
int mdir_resolve(struct mdir *m, const char *arg);
/* Free m's paths; accepts a zeroed m. */
void mdir_free(struct mdir *m);

#endif
