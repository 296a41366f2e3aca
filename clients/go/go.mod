// The Go client of the Yggdrasil API: the generated stubs (package yggdrasilv1 in yggdrasil/v1,
// import path yggdrasil/gen/go/yggdrasil/v1 as go_package in proto/ sets it; regenerate with
// `make stubs`) and an example bot (example/random_bot; `make go-example` plays a game with it).
//
// The stubs come from protoc-gen-go v1.28.1 and protoc-gen-go-grpc 1.0, the binary of Debian's
// protoc-gen-go-grpc package, which is built from the grpc-go 1.33.3 sources (there is no
// protoc-gen-go-grpc release 1.33.3). They need google.golang.org/grpc 1.32 or later,
// google.golang.org/protobuf 1.20 or later and github.com/golang/protobuf 1.4 or later: with
// golang/protobuf 1.3 they compile, but the first RPC panics. Tested with the versions below
// (Debian bookworm's packages; offline build recipe and package list: docs/clients.md).
//
// From your own module (with access to a module proxy):
//   require yggdrasil/gen/go v0.0.0
//   replace yggdrasil/gen/go => <path to this directory>
// then `go mod tidy`.
module yggdrasil/gen/go

go 1.19

require (
	github.com/golang/protobuf v1.5.2 // indirect
	google.golang.org/grpc v1.33.3
	google.golang.org/protobuf v1.28.1
)
