;; SHA-256's compression function over whole 64-byte blocks, for src/store/sha256.ts (which keeps
;; the padding, the partial block and the saved state). `npm run build:sha256` assembles it into
;; src/store/sha256-blocks-wasm.ts; wasm/sha256/build.test.ts checks that file against this one.
;;
;; Memory: bytes 0-31 the eight hash words, 256-511 the round constants (written by sha256.ts from
;; its own table), 512-767 the message schedule, and from 1024 the blocks to hash (`inputBytes`,
;; 1 MiB, at most).
(module
  (memory (export "memory") 17)
  (global (export "inputOffset") i32 (i32.const 1024))
  (global (export "inputBytes") i32 (i32.const 1048576))
  (global (export "constantsOffset") i32 (i32.const 256))

  ;; Hashes `count` blocks from inputOffset into the words at 0.
  (func (export "blocks") (param $count i32)
    (local $block i32) (local $end i32) (local $i i32) (local $w i32) (local $x i32) (local $y i32)
    (local $a i32) (local $b i32) (local $c i32) (local $d i32)
    (local $e i32) (local $f i32) (local $g i32) (local $h i32)
    (local $t1 i32) (local $t2 i32)
    (local.set $block (i32.const 1024))
    (local.set $end (i32.add (i32.const 1024) (i32.shl (local.get $count) (i32.const 6))))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_u (local.get $block) (local.get $end)))
        ;; The schedule: 16 big-endian words of the block (a byte swap: wasm loads little-endian),
        ;; then 48 mixed from them.
        (local.set $i (i32.const 0))
        (loop $words
          (local.set $x (i32.load (i32.add (local.get $block) (local.get $i))))
          (i32.store (i32.add (i32.const 512) (local.get $i))
            (i32.or
              (i32.and (i32.rotl (local.get $x) (i32.const 8)) (i32.const 0x00ff00ff))
              (i32.and (i32.rotr (local.get $x) (i32.const 8)) (i32.const 0xff00ff00))))
          (local.set $i (i32.add (local.get $i) (i32.const 4)))
          (br_if $words (i32.lt_u (local.get $i) (i32.const 64))))
        (loop $schedule
          (local.set $w (i32.add (i32.const 512) (local.get $i)))
          (local.set $x (i32.load (i32.sub (local.get $w) (i32.const 60))))
          (local.set $y (i32.load (i32.sub (local.get $w) (i32.const 8))))
          (i32.store (local.get $w)
            (i32.add
              (i32.add
                (i32.load (i32.sub (local.get $w) (i32.const 64)))
                (i32.xor
                  (i32.xor (i32.rotr (local.get $x) (i32.const 7)) (i32.rotr (local.get $x) (i32.const 18)))
                  (i32.shr_u (local.get $x) (i32.const 3))))
              (i32.add
                (i32.load (i32.sub (local.get $w) (i32.const 28)))
                (i32.xor
                  (i32.xor (i32.rotr (local.get $y) (i32.const 17)) (i32.rotr (local.get $y) (i32.const 19)))
                  (i32.shr_u (local.get $y) (i32.const 10))))))
          (local.set $i (i32.add (local.get $i) (i32.const 4)))
          (br_if $schedule (i32.lt_u (local.get $i) (i32.const 256))))
        (local.set $a (i32.load (i32.const 0)))
        (local.set $b (i32.load (i32.const 4)))
        (local.set $c (i32.load (i32.const 8)))
        (local.set $d (i32.load (i32.const 12)))
        (local.set $e (i32.load (i32.const 16)))
        (local.set $f (i32.load (i32.const 20)))
        (local.set $g (i32.load (i32.const 24)))
        (local.set $h (i32.load (i32.const 28)))
        ;; 64 rounds.
        (local.set $i (i32.const 0))
        (loop $rounds
          (local.set $t1
            (i32.add
              (i32.add
                (i32.add (local.get $h)
                  (i32.xor
                    (i32.xor (i32.rotr (local.get $e) (i32.const 6)) (i32.rotr (local.get $e) (i32.const 11)))
                    (i32.rotr (local.get $e) (i32.const 25))))
                (i32.xor
                  (i32.and (local.get $e) (local.get $f))
                  (i32.and (i32.xor (local.get $e) (i32.const -1)) (local.get $g))))
              (i32.add
                (i32.load (i32.add (i32.const 256) (local.get $i)))
                (i32.load (i32.add (i32.const 512) (local.get $i))))))
          (local.set $t2
            (i32.add
              (i32.xor
                (i32.xor (i32.rotr (local.get $a) (i32.const 2)) (i32.rotr (local.get $a) (i32.const 13)))
                (i32.rotr (local.get $a) (i32.const 22)))
              (i32.xor
                (i32.xor (i32.and (local.get $a) (local.get $b)) (i32.and (local.get $a) (local.get $c)))
                (i32.and (local.get $b) (local.get $c)))))
          (local.set $h (local.get $g))
          (local.set $g (local.get $f))
          (local.set $f (local.get $e))
          (local.set $e (i32.add (local.get $d) (local.get $t1)))
          (local.set $d (local.get $c))
          (local.set $c (local.get $b))
          (local.set $b (local.get $a))
          (local.set $a (i32.add (local.get $t1) (local.get $t2)))
          (local.set $i (i32.add (local.get $i) (i32.const 4)))
          (br_if $rounds (i32.lt_u (local.get $i) (i32.const 256))))
        (i32.store (i32.const 0) (i32.add (i32.load (i32.const 0)) (local.get $a)))
        (i32.store (i32.const 4) (i32.add (i32.load (i32.const 4)) (local.get $b)))
        (i32.store (i32.const 8) (i32.add (i32.load (i32.const 8)) (local.get $c)))
        (i32.store (i32.const 12) (i32.add (i32.load (i32.const 12)) (local.get $d)))
        (i32.store (i32.const 16) (i32.add (i32.load (i32.const 16)) (local.get $e)))
        (i32.store (i32.const 20) (i32.add (i32.load (i32.const 20)) (local.get $f)))
        (i32.store (i32.const 24) (i32.add (i32.load (i32.const 24)) (local.get $g)))
        (i32.store (i32.const 28) (i32.add (i32.load (i32.const 28)) (local.get $h)))
        (local.set $block (i32.add (local.get $block) (i32.const 64)))
        (br $blocks))))
)
