/* scope-tui: the command line of src/ with the terminal browser of ui/. */
#include "commands.h"
#include "tui.h"

int main(int argc, char **argv) {
    return scope_cli_main(argc, argv, tui_main, tui_usage);
}
