#!/usr/bin/env bash
# Keeps the pure core pure: catalog/, server/wire/, server/dispatch/, server/protection/ and server/scim/ take
# text, values and `now` as arguments and never touch sockets, the database, TLS, threads, files,
# the environment or the clock.
#
#   scripts/check-pure-core.sh ROOT      # exit 0 when clean; 1 with file:line: reason lines
#
# Only code is matched: #include directives by their target, everything else after comments and
# the contents of string and character literals are blanked, so "thread-safe" in a comment or
# "getenv" in a message passes.
set -euo pipefail

root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
[[ -d ${root} ]] || { echo "check-pure-core: no such directory: ${root}" >&2; exit 2; }
cd "${root}"

dirs=()
for dir in catalog server/wire server/dispatch server/protection server/scim; do
  [[ -d ${dir} ]] && dirs+=("${dir}")
done
if [[ ${#dirs[@]} -eq 0 ]]; then
  echo "pure core: nothing to check under ${root}"
  exit 0
fi

mapfile -d '' files < <(find "${dirs[@]}" -type f \
  \( -name '*.h' -o -name '*.hh' -o -name '*.hpp' -o -name '*.hxx' -o -name '*.inl' -o -name '*.ipp' \
     -o -name '*.tcc' -o -name '*.c' -o -name '*.cc' -o -name '*.cpp' -o -name '*.cxx' \) -print0 | sort -z)
if [[ ${#files[@]} -eq 0 ]]; then
  echo "pure core: no source files under ${dirs[*]}"
  exit 0
fi

perl -e '
use strict;
use warnings;

# Headers the pure core may not include, by the include target.
my @headers = (
  [qr{^Poco/},                                   "Poco"],
  [qr{^pqxx(/|$)},                               "libpqxx"],
  [qr{^(libpq-fe\.h|postgresql/)},               "libpq"],
  [qr{^openssl/},                                "OpenSSL"],
  [qr{^(thread|mutex|shared_mutex|condition_variable|future|stop_token|semaphore|latch|barrier|pthread\.h)$},
                                                 "threads"],
  [qr{^(atomic|stdatomic\.h)$},                  "atomics"],
  [qr{^(fstream|filesystem)$},                   "file access"],
  [qr{^(sys/socket\.h|netdb\.h|netinet/|arpa/inet\.h)},  "sockets"],
);

# Calls and names the pure core may not use, matched on code with comments and literals blanked.
my @code = (
  [qr{\b(?:system_clock|steady_clock|high_resolution_clock|utc_clock|tai_clock|gps_clock|file_clock)\s*::\s*now\s*\(},
                                                 "clock read (pass now in)"],
  [qr{\b(?:gettimeofday|clock_gettime|timespec_get)\s*\(}, "clock read (pass now in)"],
  [qr{(?:\bstd\s*::\s*|(?<![\w.>:]))time\s*\(},  "clock read (pass now in)"],
  [qr{\b(?:secure_)?getenv\b},                   "environment read"],
  [qr{\bstd\s*::\s*(?:i|o)?fstream\b},           "file access"],
  [qr{\bstd\s*::\s*filesystem\b},                "file access"],
  [qr{\b(?:fopen|freopen|popen)\s*\(},           "file access"],
  [qr{\bstd\s*::\s*(?:jthread|thread|this_thread|mutex|shared_mutex|recursive_mutex|timed_mutex|condition_variable|atomic\w*)\b},
                                                 "threads"],
);

# Returns the text with comments blanked and literal contents blanked, newlines kept, so line
# numbers still match the source.
sub code_only {
  my ($s) = @_;
  my $out = "";
  my $n = length $s;
  my $i = 0;
  while ($i < $n) {
    my $c = substr($s, $i, 1);
    my $two = substr($s, $i, 2);
    if ($two eq "//") {
      my $end = index($s, "\n", $i);
      $end = $n if $end < 0;
      $out .= " " x ($end - $i);
      $i = $end;
    } elsif ($two eq "/*") {
      my $end = index($s, "*/", $i + 2);
      $end = $end < 0 ? $n : $end + 2;
      (my $blank = substr($s, $i, $end - $i)) =~ s/[^\n]/ /g;
      $out .= $blank;
      $i = $end;
    } elsif ($c eq "\"" && substr($s, $i < 4 ? 0 : $i - 4, $i < 4 ? $i : 4) =~ /(?:\A|\W)(?:u8|u|U|L)?R\z/
             && substr($s, $i, 20) =~ /\A"([^()\\\s]{0,16})\(/) {
      my $close = ")" . $1 . "\"";
      my $end = index($s, $close, $i);
      $end = $end < 0 ? $n : $end + length $close;
      (my $blank = substr($s, $i, $end - $i)) =~ s/[^\n]/ /g;
      $out .= "\"" . substr($blank, 1, -1) . "\"";
      $i = $end;
    } elsif ($c eq "\"" || ($c eq "\x27" && ($i == 0 || substr($s, $i - 1, 1) !~ /\w/))) {
      # A quote after an identifier character is a digit separator (1\x27000), not a literal.
      my $j = $i + 1;
      while ($j < $n) {
        my $d = substr($s, $j, 1);
        if ($d eq "\\") { $j += 2; next; }
        last if $d eq $c || $d eq "\n";
        $j++;
      }
      $j = $n - 1 if $j >= $n;
      my $len = $j - $i - 1;
      $out .= $c . (" " x ($len > 0 ? $len : 0)) . ($j > $i ? substr($s, $j, 1) : "");
      $i = $j + 1;
    } else {
      $out .= $c;
      $i++;
    }
  }
  return $out;
}

my $problems = 0;
for my $file (@ARGV) {
  open(my $fh, "<", $file) or die "check-pure-core: cannot read $file: $!\n";
  my $text = do { local $/; <$fh> };
  close $fh;
  my @raw = split /\n/, $text, -1;
  my @code_lines = split /\n/, code_only($text), -1;
  for my $k (0 .. $#code_lines) {
    my ($line, $src) = ($code_lines[$k], $raw[$k] // "");
    my @found;
    if ($line =~ /^\s*#\s*include\b/) {
      if ($src =~ /^\s*#\s*include\s*[<"]\s*([^>"]+?)\s*[>"]/) {
        my $target = $1;
        for my $h (@headers) { push @found, $h->[1] if $target =~ $h->[0]; }
      }
    } else {
      for my $p (@code) { push @found, $p->[1] if $line =~ $p->[0]; }
    }
    next unless @found;
    my %seen;
    @found = grep { !$seen{$_}++ } @found;
    (my $shown = $src) =~ s/^\s+|\s+$//g;
    printf "%s:%d: %s: %s\n", $file, $k + 1, join(", ", @found), $shown;
    $problems++;
  }
}
if ($problems) {
  print STDERR "pure core: $problems forbidden use(s); the pure core takes text, values and now as arguments\n";
  exit 1;
}
printf "pure core: %d files clean\n", scalar @ARGV;
' "${files[@]}"
