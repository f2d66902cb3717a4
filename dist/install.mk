# dist/install.mk — make install and make uninstall, included by the Makefile.
#
#   make install     build, then put under DESTDIR (default: none) and PREFIX (default /usr/local):
#                      PREFIX/bin/vivd, PREFIX/bin/viv
#                      PREFIX/share/vivarium/web/            the page (clients/web's served files)
#                      PREFIX/share/vivarium/vivarium.wasm   its sim module
#                      PREFIX/share/man/man1/vivd.1, viv.1   from the programs' own --help (help2man)
#                      SYSTEMD_UNIT_DIR/vivd.service         (default PREFIX/lib/systemd/system)
#   make uninstall   removes those files and the share/vivarium folders, and nothing else
#   make man         the two man pages, in build/man/
#   make test-install  tests/install.sh: install into a temporary DESTDIR, check, run, uninstall
#
# An installed vivd (and viv replay export --html) finds the page and the module from its own
# folder, ../share/vivarium (opt/paths.h), with no flag: so bin/ and share/ both come from PREFIX
# and are not set one by one. A PREFIX outside systemd's search path (/opt/vivarium) wants
# SYSTEMD_UNIT_DIR=/etc/systemd/system.

PREFIX           ?= /usr/local
DESTDIR          ?=
SYSTEMD_UNIT_DIR ?= $(PREFIX)/lib/systemd/system
INSTALL          ?= install
HELP2MAN         ?= help2man
INST_BIN   = $(DESTDIR)$(PREFIX)/bin
INST_SHARE = $(DESTDIR)$(PREFIX)/share/vivarium
INST_MAN1  = $(DESTDIR)$(PREFIX)/share/man/man1
INST_UNIT  = $(DESTDIR)$(SYSTEMD_UNIT_DIR)

# What the page serves: its modules, styles and pages, and the vendored modules with their
# licences; not its notes, its package.json (for Node in tests) or the vendoring script.
WEB_FILES    := $(sort $(wildcard clients/web/*.html clients/web/*.js clients/web/*.css))
WEB_VENDOR   := $(sort $(wildcard clients/web/vendor/*.js clients/web/vendor/*.LICENSE)) clients/web/vendor/VERSIONS
MAN_PAGES    := $(BUILD)/man/vivd.1 $(BUILD)/man/viv.1

.PHONY: install uninstall man test-install

man: $(MAN_PAGES)

# The page says what the program's --help says (dist/help2man.sh lays it out for help2man), in
# UTF-8 (the help has a few non-ASCII characters), dated by the last commit so that a rebuild
# writes the same page. groff's ASCII output (man in the C locale) has a stand-in for each of
# those characters but the ellipsis: the page brings its own.
MAN_DATE := $(shell git log -1 --format=%ct 2>/dev/null)
MAN_NAME_vivd := the Vivarium server: deterministic pixel-art worlds over TCP and WebSocket
MAN_NAME_viv  := the Vivarium command line: run, watch, load, record, verify and export worlds
$(BUILD)/man/%.1: $(BIN)/% dist/help2man.sh
	@mkdir -p $(dir $@)
	SOURCE_DATE_EPOCH=$(MAN_DATE) $(HELP2MAN) --no-info --locale=C.UTF-8 \
	    --name="$(MAN_NAME_$*)" \
	    --output=$@.tmp "sh dist/help2man.sh $<"
	sed '/^\.TH /a .if !c\\[u2026] .char \\[u2026] ...' $@.tmp > $@ && rm -f $@.tmp

install: all $(MAN_PAGES)
	$(INSTALL) -d $(INST_BIN) $(INST_SHARE)/web/vendor $(INST_MAN1) $(INST_UNIT)
	$(INSTALL) -m 0755 $(BIN)/vivd $(BIN)/viv $(INST_BIN)/
	$(INSTALL) -m 0644 $(WEB_FILES) $(INST_SHARE)/web/
	$(INSTALL) -m 0644 $(WEB_VENDOR) $(INST_SHARE)/web/vendor/
	$(INSTALL) -m 0644 $(WASM_MODULE) $(INST_SHARE)/vivarium.wasm
	$(INSTALL) -m 0644 $(MAN_PAGES) $(INST_MAN1)/
	sed 's|@BINDIR@|$(PREFIX)/bin|g' dist/vivd.service.in > $(INST_UNIT)/vivd.service.tmp
	chmod 0644 $(INST_UNIT)/vivd.service.tmp && mv $(INST_UNIT)/vivd.service.tmp $(INST_UNIT)/vivd.service

# Each file install put, by name; then the folders that are vivarium's alone, if empty (a file
# someone else put there stays, and so does its folder). bin/, man1/ and the unit folder are
# shared with other programs and stay.
uninstall:
	rm -f $(INST_BIN)/vivd $(INST_BIN)/viv $(INST_MAN1)/vivd.1 $(INST_MAN1)/viv.1 $(INST_UNIT)/vivd.service
	rm -f $(addprefix $(INST_SHARE)/web/,$(notdir $(WEB_FILES))) \
	      $(addprefix $(INST_SHARE)/web/vendor/,$(notdir $(WEB_VENDOR))) $(INST_SHARE)/vivarium.wasm
	for d in $(INST_SHARE)/web/vendor $(INST_SHARE)/web $(INST_SHARE); do \
	    if [ -d "$$d" ]; then rmdir "$$d" 2>/dev/null || echo "uninstall: $$d kept: install did not put all it holds"; fi; done

test-install: all $(MAN_PAGES)
	sh tests/install.sh $(BIN)
