/* Checkpoints: the learner's model and replay buffer, saved to a real file. */
#ifndef PIPELINE_CHECKPOINT_H
#define PIPELINE_CHECKPOINT_H

#include "model.h"

#include <stddef.h>
#include <stdint.h>

#define CHECKPOINT_FILE "model.ckpt"

/* Creates dir and any missing parents.  Returns 0, or -1 with errno set. */
int checkpoint_make_dir(const char *dir);

/* Saves the model and the whole replay buffer (capacity samples, filled or
 * not, so every checkpoint has the same size) as dir/model.ckpt.  Returns the
 * bytes written, or -1 with errno set. */
int64_t checkpoint_save(const char *dir, int iteration, const model *m, const sample *replay,
                        size_t capacity);

/* Reads the network of dir/model.ckpt into m, as an actor refreshes its
 * weights.  Returns 1, 0 when there is no checkpoint yet, or -1 with errno
 * set (EINVAL: not a checkpoint of this program). */
int checkpoint_load_model(const char *dir, model *m);

#endif
