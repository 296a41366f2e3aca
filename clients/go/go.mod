// Generated Go client stubs of the Yggdrasil API (package yggdrasilv1, import path
// yggdrasil/gen/go/yggdrasil/v1 as set by go_package in proto/). Regenerate with `make stubs`.
// Minimum versions: the code of protoc-gen-go 1.28.1 and protoc-gen-go-grpc 1.33.3 (see
// scripts/gen_stubs.sh). Use it from your module with
//   require yggdrasil/gen/go v0.0.0
//   replace yggdrasil/gen/go => <path to this directory>
// and `go mod tidy`.
module yggdrasil/gen/go

go 1.19

require (
	google.golang.org/grpc v1.33.3
	google.golang.org/protobuf v1.28.1
)
