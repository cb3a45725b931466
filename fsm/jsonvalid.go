package fsm

import "encoding/binary"

// maxNestingDepth is how deeply encoding/json lets arrays and objects
// nest: validJSON keeps the same limit, so that it accepts what
// json.Valid accepts.
const maxNestingDepth = 10000

// validJSON reports whether data is exactly one JSON value, surrounded by
// blanks at most: the rules of encoding/json.Valid, its nesting limit
// included (FuzzValidJSON holds the two to the same answers). The state
// machine checks every object a write stores with it, on every node, so
// whether an entry is applied or rejected must not depend on the release
// that applies it. It walks the bytes once, without recursion, where
// json.Valid calls a state function per byte: about three times faster on
// a 1 KiB ConfigMap (BenchmarkValidJSON).
func validJSON(data []byte) bool {
	var buf [64]byte
	open := buf[:0] // the arrays and objects open at i: '[' or '{'
	i := skipSpace(data, 0)
	for {
		// A value starts at i.
		if i >= len(data) {
			return false
		}
		switch c := data[i]; c {
		case '[', '{':
			if open = append(open, c); len(open) > maxNestingDepth {
				return false
			}
			i = skipSpace(data, i+1)
			if i < len(data) && data[i] == c+2 { // ']' is '['+2, '}' is '{'+2
				open = open[:len(open)-1]
				i++
				break
			}
			if c == '{' {
				i = memberValue(data, i)
			}
			if i < 0 {
				return false
			}
			continue // to the first element or member's value
		case '"':
			i = skipValidString(data, i)
		case 't':
			i = skipLiteral(data, i, "true")
		case 'f':
			i = skipLiteral(data, i, "false")
		case 'n':
			i = skipLiteral(data, i, "null")
		default:
			i = skipValidNumber(data, i)
		}
		if i < 0 {
			return false
		}
		// After a value: close what it ends, then go on to the next
		// element or member, or to the end of data.
		for {
			i = skipSpace(data, i)
			if len(open) == 0 {
				return i == len(data)
			}
			if i >= len(data) {
				return false
			}
			top := open[len(open)-1]
			if data[i] == top+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if data[i] != ',' {
				return false
			}
			i = skipSpace(data, i+1)
			if top == '{' {
				if i = memberValue(data, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// memberValue checks the key and colon of an object member that starts at
// data[i] and returns the offset of its value, or -1.
func memberValue(data []byte, i int) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	if i = skipValidString(data, i); i < 0 {
		return -1
	}
	if i = skipSpace(data, i); i >= len(data) || data[i] != ':' {
		return -1
	}
	return skipSpace(data, i+1)
}

// skipValidString returns the offset just past the valid string that
// starts at data[i] (its opening quote), or -1.
func skipValidString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		if i = skipPlain(data, i); i >= len(data) {
			return -1
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i++; i >= len(data) {
				return -1
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(data) || !isHex(data[i+1]) || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) {
					return -1
				}
				i += 4
			default:
				return -1
			}
		case c < 0x20:
			return -1
		}
	}
	return -1
}

// skipPlain returns the offset of the first byte at or after i that a
// string cannot hold as it is — a quote, a backslash or a control
// character — or len(data). It tests eight bytes at a time (the
// "has a byte less than n / equal to n" word tricks): a ConfigMap's
// values are long runs of plain bytes.
func skipPlain(data []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(data); i += 8 {
		x := binary.LittleEndian.Uint64(data[i:])
		control := (x - ones*0x20) &^ x & highs
		quote := (x ^ ones*'"' - ones) &^ (x ^ ones*'"') & highs
		backslash := (x ^ ones*'\\' - ones) &^ (x ^ ones*'\\') & highs
		if control|quote|backslash != 0 {
			break
		}
	}
	for ; i < len(data); i++ {
		if c := data[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// skipValidNumber returns the offset just past the valid number that
// starts at data[i], or -1.
func skipValidNumber(data []byte, i int) int {
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return -1
	case data[i] == '0':
		i++
	case '1' <= data[i] && data[i] <= '9':
		i = skipDigits(data, i+1)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		if i = skipSomeDigits(data, i+1); i < 0 {
			return -1
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		return skipSomeDigits(data, i)
	}
	return i
}

// skipSomeDigits returns the offset after the one or more digits at
// data[i], or -1 when there are none.
func skipSomeDigits(data []byte, i int) int {
	if i >= len(data) || data[i] < '0' || data[i] > '9' {
		return -1
	}
	return skipDigits(data, i+1)
}

// skipDigits returns the offset of the first byte at or after i that is
// not a digit.
func skipDigits(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}

// skipLiteral returns the offset after lit at data[i], or -1.
func skipLiteral(data []byte, i int, lit string) int {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
