# shellcheck shell=bash
# Prerequisites installed with apt-get only when missing: a JDK 17 or 21, Maven, curl, openssl, jq, the browser; the hostname check.
# Sourced by ./teamdesk (jdk.sh); uses its variables (ROOT, RUN_DIR, ...) and scripts/lib/output.sh.

APT_UPDATED=0
APT_ERROR='' # why the last apt_try_install failed, for the caller's message
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "This step needs root: $*"
    fi
}

can_be_root() { [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1; }

apt_last_error() { # apt_last_error <file>: apt's last "E:" line (else its last line), for a one-line reason
    local line
    line=$(grep '^E: ' "$1" 2>/dev/null | tail -n 1 || true)
    [ -n "$line" ] || line=$(grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1 || true)
    printf '%s' "${line:-no message}"
}

apt_try_update() { # once per run; 1 with APT_ERROR set when it cannot be done
    local err rc=0
    if ! command -v apt-get >/dev/null 2>&1; then
        APT_ERROR="there is no apt-get here (this script installs with apt-get: Debian/Ubuntu)"
        return 1
    fi
    can_be_root || { APT_ERROR="installing needs root or sudo"; return 1; }
    [ "$APT_UPDATED" = 0 ] || return 0
    step "apt-get update"
    err=$(mktemp)
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null 2>"$err" || rc=$?
    cat "$err" >&2
    [ "$rc" -eq 0 ] || APT_ERROR="apt-get update failed: $(apt_last_error "$err")"
    rm -f "$err"
    [ "$rc" -eq 0 ] || return 1
    APT_UPDATED=1
}

apt_try_install() { # apt_try_install <package...>: 0 when apt-get installed them, else 1 with APT_ERROR set
    local err rc=0
    apt_try_update || return 1
    step "apt-get install $*"
    err=$(mktemp)
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" </dev/null 2>"$err" || rc=$?
    cat "$err" >&2
    [ "$rc" -eq 0 ] || APT_ERROR="apt-get install $* failed: $(apt_last_error "$err")"
    rm -f "$err"
    return "$rc"
}

install_missing() { # install_missing <what is missing> <package...>: installed, or die "<what> is missing and could not be installed (why)"
    local what=$1
    shift
    apt_try_install "$@" || die "$what is missing and could not be installed ($APT_ERROR)."
}

# Java: Payara Micro 6 runs on JDK 17 and 21 (the build compiles with release 17 either way). Debian 12
# packages OpenJDK 17, Debian 13 only 21 and 25; Payara Micro 6 is not meant for 25.
JDK_MIN=17
JDK_MAX=21
JDK_VERSIONS="17 21" # looked for under $JVM_ROOT in this order
JVM_ROOT="${TEAMDESK_JVM_ROOT:-/usr/lib/jvm}" # where Debian installs JDKs (a variable for scripts/test-launcher.sh)

java_bin() { if [ -n "${JAVA_HOME:-}" ]; then echo "$JAVA_HOME/bin/java"; else echo java; fi; }

jdk_major() { # jdk_major <java>: its feature version (17, 21, ...), or 0
    local v
    v=$("$1" -version 2>&1 | sed -n 's/.* version "\([0-9][0-9]*\)[."].*/\1/p;s/.* version "\([0-9][0-9]*\)".*/\1/p' | head -n 1) || true
    echo "${v:-0}"
}
java_major() { jdk_major "$(java_bin)"; }

jdk_usable() { # jdk_usable <java>: a full JDK (javac beside java) of a version Payara Micro 6 supports
    local java bin major
    java=$(command -v "$1" 2>/dev/null) || return 1
    bin=$(dirname "$(readlink -f "$java")")
    [ -x "$bin/javac" ] || return 1
    major=$(jdk_major "$java")
    [ "$major" -ge "$JDK_MIN" ] && [ "$major" -le "$JDK_MAX" ]
}

find_jdk() { # prints the home of an installed OpenJDK 17 or 21 under $JVM_ROOT, or fails
    local v dir
    for v in $JDK_VERSIONS; do
        for dir in "$JVM_ROOT"/java-"$v"-openjdk*; do
            if [ -d "$dir" ] && jdk_usable "$dir/bin/java"; then
                echo "$dir"
                return 0
            fi
        done
    done
    return 1
}

jdk_package() { # the JDK package apt can install here: 17 where packaged, else 21 (Debian 13); apt_try_update first
    local v
    for v in $JDK_VERSIONS; do
        if [ -n "$(apt-cache madison "openjdk-$v-jdk-headless" 2>/dev/null)" ]; then
            echo "openjdk-$v-jdk-headless"
            return 0
        fi
    done
    return 1
}

ensure_java() {
    local home pkg
    if jdk_usable "$(java_bin)"; then
        ok "Java $(java_major) ($(command -v "$(java_bin)"))"
        return
    fi
    if command -v "$(java_bin)" >/dev/null 2>&1; then
        info "$(command -v "$(java_bin)") is Java $(java_major)$(jdk_usable_reason); looking for a JDK $JDK_MIN or $JDK_MAX"
    fi
    if ! home=$(find_jdk); then
        apt_try_update || die "A JDK $JDK_MIN or $JDK_MAX is missing and could not be installed ($APT_ERROR)."
        pkg=$(jdk_package) || die "apt offers neither openjdk-17-jdk-headless nor openjdk-21-jdk-headless here.
       Install a JDK 17 or 21 yourself and set JAVA_HOME to it (Payara Micro 6 does not support newer ones)."
        install_missing "A JDK $JDK_MIN or $JDK_MAX" "$pkg"
        home=$(find_jdk) || die "$pkg installed but no JDK $JDK_MIN or $JDK_MAX found under $JVM_ROOT (java-17-openjdk*, java-21-openjdk*)"
    fi
    export JAVA_HOME="$home" PATH="$home/bin:$PATH"
    ok "Java $(java_major) (JAVA_HOME=$home)"
}

jdk_usable_reason() { # why the current java is not used (after jdk_usable failed)
    local java
    java=$(command -v "$(java_bin)")
    if [ ! -x "$(dirname "$(readlink -f "$java")")/javac" ]; then
        echo " without javac (a JRE)"
    else
        echo ", not $JDK_MIN-$JDK_MAX"
    fi
}

ensure_cmd() { # ensure_cmd <command> <apt package>: the command is there (installed when missing), or die saying so
    if command -v "$1" >/dev/null 2>&1; then
        ok "$1"
        return
    fi
    install_missing "$1" "$2"
    command -v "$1" >/dev/null 2>&1 ||
        die "$1 is missing and could not be installed (apt-get install $2 succeeded, but there is still no $1 on the PATH)."
}

ensure_tools() { # ensure_tools [extra commands...]: java, mvn, curl, openssl and the given ones
    step "Checking prerequisites"
    ensure_java
    ensure_cmd mvn maven
    ensure_cmd curl curl
    ensure_cmd openssl openssl
    local c
    for c in "$@"; do
        case "$c" in
            jq) ensure_cmd jq jq ;;
            browser) ensure_browser ;;
            *) die "internal: unknown tool $c" ;;
        esac
    done
}

# The browser tests (ConsoleIT) drive Debian's chromium through chromium-driver (Selenium); nothing is
# downloaded at run time. Installed when missing; a browser that cannot start fails here, loudly.
CHROMIUM_BIN=/usr/bin/chromium
CHROMEDRIVER_BIN=/usr/bin/chromedriver
ensure_browser() {
    if [ ! -x "$CHROMIUM_BIN" ] || [ ! -x "$CHROMEDRIVER_BIN" ]; then
        install_missing "The browser of the browser tests (chromium, chromium-driver)" chromium chromium-driver
    fi
    # Chinese and emoji ticket titles in the screenshots need fonts that have those glyphs.
    if ! fc-list 2>/dev/null | grep -q 'NotoSansCJK' || ! fc-list 2>/dev/null | grep -q 'NotoColorEmoji'; then
        install_missing "The fonts of the browser tests" fonts-noto-cjk fonts-noto-color-emoji
    fi
    [ -x "$CHROMIUM_BIN" ] && [ -x "$CHROMEDRIVER_BIN" ] ||
        die "chromium and chromium-driver are installed but $CHROMIUM_BIN or $CHROMEDRIVER_BIN is missing; the browser tests cannot run."
    local v
    v=$("$CHROMEDRIVER_BIN" --version 2>&1) || die "$CHROMEDRIVER_BIN does not run: $v"
    "$CHROMIUM_BIN" --headless --no-sandbox --disable-gpu --dump-dom about:blank >/dev/null 2>&1 ||
        die "$CHROMIUM_BIN cannot start headless (try: $CHROMIUM_BIN --headless --no-sandbox --dump-dom about:blank). The browser tests never skip."
    ok "$v, $("$CHROMIUM_BIN" --version 2>/dev/null | head -n 1)"
}

# Payara Micro looks up this machine's own name at start and dies with
# java.net.UnknownHostException when it does not resolve (seen in minimal containers and fresh
# root file systems): say so before building anything.
check_hostname() {
    local name
    name=$(hostname 2>/dev/null || cat /etc/hostname 2>/dev/null || true)
    [ -n "$name" ] || die "This machine has no hostname (hostname printed nothing); Payara Micro needs one that resolves."
    if getent hosts "$name" >/dev/null 2>&1; then
        ok "hostname $name resolves"
        return
    fi
    die "This machine's hostname '$name' does not resolve (getent hosts $name finds nothing).
       Payara Micro would die at start with java.net.UnknownHostException: $name.
       Fix: add it to /etc/hosts, e.g.   echo '127.0.1.1 $name' | sudo tee -a /etc/hosts"
}
