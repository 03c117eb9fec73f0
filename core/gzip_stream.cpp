#include "core/gzip_stream.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include <zlib.h>

namespace brigade {
namespace {
constexpr size_t kChunk = 1 << 20;
constexpr size_t kInFlight = 3;  // buffers between the caller and the deflating thread
}  // namespace

// The caller fills 1 MiB buffers; a thread of its own deflates them and
// writes the sink, so that formatting and compressing overlap (on two cores
// the trace writer takes the longer of the two, not their sum). Buffers are
// always handed over full (the last one excepted), so the bytes written do
// not depend on timing. Where no thread can be started, the caller deflates.
struct GzipWriteBuf::Impl {
  std::ostream& sink;
  z_stream z{};
  bool open = false, finished = false;
  std::atomic<bool> failed{false};
  std::vector<char> out;
  std::vector<char> current;
  // Hand-over between the caller and the worker.
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::vector<char>> full;
  std::vector<std::vector<char>> spare;
  std::size_t buffers = 0;  // made so far (at most kInFlight)
  bool closing = false;
  std::thread worker;
  bool threaded = false;

  explicit Impl(std::ostream& s) : sink(s), out(kChunk), current(kChunk) {}

  // Deflates `data` (all of it) and writes what comes out.
  bool deflate_some(const char* data, std::size_t n, int flush) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    z.avail_in = static_cast<uInt>(n);
    int rc = Z_OK;
    do {
      z.next_out = reinterpret_cast<Bytef*>(out.data());
      z.avail_out = static_cast<uInt>(out.size());
      rc = deflate(&z, flush);
      if (rc == Z_STREAM_ERROR) return false;
      const size_t have = out.size() - z.avail_out;
      if (have > 0 && !sink.write(out.data(), static_cast<std::streamsize>(have))) return false;
    } while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    return true;
  }

  void run() {
    for (;;) {
      std::vector<char> buf;
      bool last = false;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return !full.empty() || closing; });
        if (full.empty()) return;
        buf = std::move(full.front());
        full.pop_front();
        last = closing && full.empty();
      }
      if (!failed && !deflate_some(buf.data(), buf.size(), last ? Z_FINISH : Z_NO_FLUSH))
        failed = true;
      {
        std::lock_guard lock(mu);
        buf.clear();
        spare.push_back(std::move(buf));
      }
      cv.notify_all();
      if (last) return;
    }
  }

  // Hands `current` over (`last`: the final one) and takes an empty buffer.
  void hand_over(bool last) {
    if (!threaded) {
      if (!failed && !deflate_some(current.data(), current.size(), last ? Z_FINISH : Z_NO_FLUSH))
        failed = true;
      current.clear();
      return;
    }
    std::unique_lock lock(mu);
    full.push_back(std::move(current));
    if (last) closing = true;
    cv.notify_all();
    if (last) return;
    if (spare.empty() && buffers < kInFlight) {
      ++buffers;
      current = std::vector<char>();
    } else {
      cv.wait(lock, [&] { return !spare.empty(); });
      current = std::move(spare.back());
      spare.pop_back();
    }
  }
};

GzipWriteBuf::GzipWriteBuf(std::ostream& sink, int level) : impl_(std::make_unique<Impl>(sink)) {
  Impl& m = *impl_;
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  m.open = deflateInit2(&m.z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
  m.failed = !m.open;
  m.current.clear();
  m.current.reserve(kChunk);
  if (m.open) {
    try {
      m.worker = std::thread([&m] { m.run(); });
      m.threaded = true;
    } catch (const std::exception&) {
      m.threaded = false;  // deflate on the caller's thread
    }
  }
}

GzipWriteBuf::~GzipWriteBuf() {
  if (impl_->open && !impl_->finished) (void)finish();
  if (impl_->open) deflateEnd(&impl_->z);
}

bool GzipWriteBuf::deflate_input(int flush) {
  Impl& m = *impl_;
  if (m.failed) return false;
  m.hand_over(flush == Z_FINISH);
  if (m.current.capacity() < kChunk) m.current.reserve(kChunk);
  return !m.failed;
}

GzipWriteBuf::int_type GzipWriteBuf::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  Impl& m = *impl_;
  if (m.failed || m.finished) return traits_type::eof();
  if (m.current.size() >= kChunk && !deflate_input(Z_NO_FLUSH)) return traits_type::eof();
  m.current.push_back(traits_type::to_char_type(ch));
  return ch;
}

std::streamsize GzipWriteBuf::xsputn(const char* s, std::streamsize n) {
  Impl& m = *impl_;
  if (m.failed || m.finished) return 0;
  std::streamsize done = 0;
  while (done < n) {
    if (m.current.size() >= kChunk && !deflate_input(Z_NO_FLUSH)) return done;
    const auto k = std::min<std::streamsize>(
        static_cast<std::streamsize>(kChunk - m.current.size()), n - done);
    m.current.insert(m.current.end(), s + done, s + done + k);
    done += k;
  }
  return done;
}

int GzipWriteBuf::sync() {
  return impl_->failed ? -1 : 0;
}  // deflate's flush would cost ratio

Status GzipWriteBuf::finish() {
  Impl& m = *impl_;
  if (!m.finished && m.open) {
    m.finished = true;
    m.hand_over(true);
    if (m.threaded) m.worker.join();
  }
  if (m.failed) return Status::error("could not compress the output (zlib)", ErrorKind::kRuntime);
  return Status::ok();
}

struct GzipReadBuf::Impl {
  std::istream& source;
  z_stream z{};
  bool open = false, ended = false;
  std::vector<char> in, out;
  std::string error;
  explicit Impl(std::istream& s) : source(s), in(kChunk), out(kChunk) {}
};

GzipReadBuf::GzipReadBuf(std::istream& source) : impl_(std::make_unique<Impl>(source)) {
  // windowBits 15 + 32: gzip or zlib, told by the header.
  impl_->open = inflateInit2(&impl_->z, 15 + 32) == Z_OK;
  if (!impl_->open) {
    impl_->error = "zlib could not start";
    impl_->ended = true;
  }
  setg(impl_->out.data(), impl_->out.data(), impl_->out.data());
}

GzipReadBuf::~GzipReadBuf() {
  if (impl_->open) inflateEnd(&impl_->z);
}

const std::string& GzipReadBuf::error() const {
  return impl_->error;
}

GzipReadBuf::int_type GzipReadBuf::underflow() {
  Impl& m = *impl_;
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  while (!m.ended) {
    if (m.z.avail_in == 0) {
      m.source.read(m.in.data(), static_cast<std::streamsize>(m.in.size()));
      const auto got = static_cast<uInt>(m.source.gcount());
      if (got == 0) {
        m.error = "truncated gzip data (the stream ends inside a member)";
        m.ended = true;
        break;
      }
      m.z.next_in = reinterpret_cast<Bytef*>(m.in.data());
      m.z.avail_in = got;
    }
    m.z.next_out = reinterpret_cast<Bytef*>(m.out.data());
    m.z.avail_out = static_cast<uInt>(m.out.size());
    const int rc = inflate(&m.z, Z_NO_FLUSH);
    const size_t have = m.out.size() - m.z.avail_out;
    if (rc == Z_STREAM_END) {
      // Another member may follow (as gunzip reads concatenated files).
      bool more = m.z.avail_in > 0;
      if (!more) {
        m.source.read(m.in.data(), static_cast<std::streamsize>(m.in.size()));
        const auto got = static_cast<uInt>(m.source.gcount());
        m.z.next_in = reinterpret_cast<Bytef*>(m.in.data());
        m.z.avail_in = got;
        more = got > 0;
      }
      if (more)
        inflateReset(&m.z);
      else
        m.ended = true;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      m.error = std::string("corrupt gzip data (") + (m.z.msg ? m.z.msg : "zlib error") + ")";
      m.ended = true;
    }
    if (have > 0) {
      setg(m.out.data(), m.out.data(), m.out.data() + have);
      return traits_type::to_int_type(*gptr());
    }
  }
  return traits_type::eof();
}

bool starts_with_gzip_magic(std::istream& in) {
  std::streambuf* sb = in.rdbuf();
  if (!sb) return false;
  const auto a = sb->sgetc();
  if (a != 0x1f) return false;
  // Peek the second byte: take the first, look, put it back.
  sb->sbumpc();
  const auto b = sb->sgetc();
  sb->sungetc();
  return b == 0x8b;
}

bool is_gzip_path(const std::string& path) {
  return path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

}  // namespace brigade
