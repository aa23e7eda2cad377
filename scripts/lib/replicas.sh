# Shared by scripts/scale/run.sh and scripts/tasks/run.sh (sourced from the
# repo root): Debian packages installed when missing, and nginx as a
# round-robin proxy in front of replicas, run from a scratch directory.

if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi

# debian_install BINARY PACKAGE...: unless BINARY is on PATH or in
# /usr/sbin, installs the first of the packages that installs.
debian_install() {
  local bin=$1 p
  shift
  if command -v "$bin" >/dev/null 2>&1 || [ -x "/usr/sbin/$bin" ]; then return 0; fi
  echo "installing $1 (Debian package)"
  $SUDO apt-get update -qq
  for p in "$@"; do
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$p" >/dev/null 2>&1 && return 0
  done
  echo "could not install any of: $*"
  return 1
}

# start_nginx WORK PORT UPSTREAMS: nginx on 127.0.0.1:PORT, proxying /mcp
# round-robin (no ip_hash, no sticky cookie) to UPSTREAMS, "server
# host:port;" lines. Its pid, logs and temporary files stay in WORK;
# WORK/access.log has a line "upstream status" per request.
start_nginx() {
  local work=$1 port=$2 upstreams=$3
  mkdir -p "$work/tmp"
  cat >"$work/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx.pid;
error_log $work/error.log warn;
daemon on;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/tmp/body;
  proxy_temp_path $work/tmp/proxy;
  fastcgi_temp_path $work/tmp/fastcgi;
  uwsgi_temp_path $work/tmp/uwsgi;
  scgi_temp_path $work/tmp/scgi;
  log_format up '\$upstream_addr \$status';
  upstream replicas {
$upstreams    keepalive 64;
  }
  server {
    listen 127.0.0.1:$port;
    location /mcp {
      access_log $work/access.log up;
      proxy_pass http://replicas;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host 127.0.0.1;
      proxy_buffering off;            # SSE events reach the client at once
      proxy_cache off;
      proxy_read_timeout 60s;
    }
  }
}
CONF
  "$(command -v nginx || echo /usr/sbin/nginx)" -p "$work" -c "$work/nginx.conf"
}
