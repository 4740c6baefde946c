/* run_load: the table of loaders, and the model of a path from the first
 * loader that reads it. */
#include "run_load.h"

#include "run_builder.h"
#include "run_dir_loader.h"
#include "run_h5_loader.h"
#include "run_sp_loader.h"
#include "text_escape.h"

#include <string.h>

const run_loader *const run_loaders[] = {
    &run_dir_loader,
    &run_h5_loader,
    /* scope's own HDF5 layout is read by the loader above; this one claims
     * every HDF5 file left. */
    &run_sp_loader,
    NULL,
};

enum run_load_error run_load(const char *path, const run_options *opt, run_model **out, char *msg,
                             size_t msglen) {
    *out = NULL;
    run_options defaults = {0};
    if (!opt)
        opt = &defaults;
    const run_loader *loader = run_loaders[0];
    for (size_t i = 0; run_loaders[i]; i++)
        if (run_loaders[i]->probe(path)) {
            loader = run_loaders[i];
            break;
        }
    run_model_builder *b = run_builder_new(path, opt);
    if (!b) {
        char shown[512];
        scope_escape((const uint8_t *)path, strlen(path), shown, sizeof shown, 0);
        return run_load_fail(msg, msglen, RUN_ERR_NOMEM, "%s: out of memory", shown);
    }
    enum run_load_error e = loader->load(b, path, opt, msg, msglen);
    if (e != RUN_OK) {
        run_builder_abandon(b);
        return e;
    }
    return run_builder_finish(b, out, msg, msglen);
}
