// Command random_bot is an example Yggdrasil client in Go: it takes a seat in a game and
// plays random legal actions until the game is over, then prints the result.
//
//	random_bot -target 127.0.0.1:50051 -game-id ID [-seat N]
//	random_bot -target 127.0.0.1:50051 -players 2        (creates a game, prints its id)
//
// It is driven by one WatchGame stream with include_views: the first message of a stream and
// the last event of every claim or decision carry the seat's view. When a view offers legal
// actions, the bot picks one and calls SubmitAction(legal_index, state_version, a fresh
// idempotency key). The rules every client must follow (docs/clients.md):
//
//   - A decision is resent with the same idempotency key after UNAVAILABLE,
//     DEADLINE_EXCEEDED, INTERNAL or UNKNOWN (a cluster node that died behind its proxy
//     after it took the call: Envoy answers INTERNAL), for as long as a node's games take to
//     move (a minute or two at most): the server applies it once.
//   - FAILED_PRECONDITION (with a VersionMismatch detail) means the view was stale: fetch the
//     current one (GetView) and decide again on it.
//   - A broken stream is resumed with from_sequence = the last view's last_sequence + 1: the
//     first message is then exactly that view again, and the events after it follow.
//   - Keepalive pings, so that a server that vanished without closing the connection fails the
//     stream instead of leaving it waiting forever.
//   - The game ends with the GameEnded event (or a view whose status is FINISHED).
//
// With -cut N it also cuts its own stream after a random one in N messages and resumes, half
// of the time from inside a decision's events (from the last event + 1), and checks what the
// server sends against the resume contract of WatchGameRequest: no event missing, none
// changed, a view never ahead of the events before it. `make go-example` runs it that way.
//
// Exit status: 0 when the game is FINISHED, 1 on an error, a broken contract or -timeout.
package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	mathrand "math/rand"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	pb "yggdrasil/gen/go/yggdrasil/v1"
)

const rpcTimeout = 10 * time.Second

// errEnded: the server ended a stream before the game ended (it shuts down, or the game left
// its memory): resume, maybe elsewhere.
var errEnded = errors.New("the stream ended before the game did")

type options struct {
	target   string
	gameID   string
	players  int
	seat     int
	name     string
	seed     int64
	cut      int
	timeout  time.Duration
	verbose  bool
	tls      bool   // connect with TLS
	caFile   string // PEM CA the server's certificate is checked with (implies tls)
	joinCode string // join code of a reserved seat
}

func parseFlags() options {
	var o options
	target := os.Getenv("YGGDRASIL_TARGET")
	if target == "" {
		target = "127.0.0.1:50051"
	}
	flag.StringVar(&o.target, "target", target, "server HOST:PORT (default $YGGDRASIL_TARGET)")
	flag.StringVar(&o.gameID, "game-id", "", "game to join; empty: create one of -players seats")
	flag.IntVar(&o.players, "players", 2, "seats of the game to create (without -game-id)")
	flag.IntVar(&o.seat, "seat", -1, "seat to claim (-1: the lowest free seat)")
	flag.StringVar(&o.name, "name", "go-random-bot", "player name")
	flag.Int64Var(&o.seed, "seed", time.Now().UnixNano(), "seed of the random choices")
	flag.IntVar(&o.cut, "cut", 0, "cut the stream after one in N messages and resume (0: never)")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
	flag.BoolVar(&o.verbose, "verbose", false, "log every decision")
	flag.BoolVar(&o.tls, "tls", os.Getenv("YGGDRASIL_TLS") != "", "connect with TLS (default $YGGDRASIL_TLS)")
	flag.StringVar(&o.caFile, "ca-file", os.Getenv("YGGDRASIL_CA_FILE"), "PEM CA to check the server with; implies -tls (default $YGGDRASIL_CA_FILE; none: the system's roots)")
	flag.StringVar(&o.joinCode, "join-code", os.Getenv("YGGDRASIL_JOIN_CODE"), "join code of a reserved seat (default $YGGDRASIL_JOIN_CODE)")
	flag.Parse()
	return o
}

func logf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "[go random_bot] "+format+"\n", args...)
}

// newKey is a fresh idempotency key (128 random bits).
func newKey() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// bot is one seat of one game.
type bot struct {
	o      options
	client pb.GameServiceClient
	rng    *mathrand.Rand
	cuts   *mathrand.Rand
	gameID string
	seat   int32
	token  string

	view   *pb.View             // the newest view from the stream or GetView
	events map[uint64]*pb.Event // every event received, by sequence (to check repeats)
	last   uint64               // the newest event received
	floor  int64                // state versions up to this one are decided or known stale
	stats  map[string]int
}

// call runs one unary RPC with a deadline.
func call[T any](ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, rpcTimeout)
	defer cancel()
	return f(ctx)
}

func (b *bot) join(ctx context.Context) error {
	if b.gameID == "" {
		created, err := call(ctx, func(ctx context.Context) (*pb.CreateGameResponse, error) {
			return b.client.CreateGame(ctx, &pb.CreateGameRequest{
				Options: &pb.GameOptions{PlayerCount: int32(b.o.players)},
			})
		})
		if err != nil {
			return fmt.Errorf("CreateGame: %w", err)
		}
		b.gameID = created.GameId
		fmt.Printf("created game %s (%d seats)\n", b.gameID, b.o.players)
	}
	// A token of our own makes JoinGame safe to resend: a retry gets the same seat back.
	request := &pb.JoinGameRequest{GameId: b.gameID, PlayerName: b.o.name, SeatToken: newKey() + newKey(), JoinCode: b.o.joinCode}
	if b.o.seat >= 0 {
		seat := int32(b.o.seat)
		request.Seat = &seat
	}
	joined, err := retry(ctx, func(ctx context.Context) (*pb.JoinGameResponse, error) {
		return b.client.JoinGame(ctx, request)
	})
	if err != nil {
		return fmt.Errorf("JoinGame: %w", err)
	}
	b.seat, b.token = joined.Seat, joined.SeatToken
	logf("joined game %s as seat %d", b.gameID, b.seat)
	return nil
}

// retryPatience is how long a unary call is sent again without success: a node that dies
// takes its lease TTL and a takeover before another one serves its games.
const retryPatience = 2 * time.Minute

// retry runs a unary call again (same request) while its end is transient: the server is
// unavailable or slow, or a cluster node died under the call behind its proxy (INTERNAL,
// UNKNOWN). Every call retried here is safe to resend: reads, SubmitAction with its
// idempotency key, JoinGame with our own seat token.
func retry[T any](ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	var zero T
	giveUp := time.Now().Add(retryPatience)
	for attempt := 1; ; attempt++ {
		got, err := call(ctx, f)
		switch status.Code(err) {
		case codes.Unavailable, codes.DeadlineExceeded, codes.Internal, codes.Unknown:
			if time.Now().After(giveUp) {
				return got, err
			}
		default:
			return got, err
		}
		pause := time.Duration(attempt) * 200 * time.Millisecond
		if pause > 2*time.Second {
			pause = 2 * time.Second
		}
		select {
		case <-ctx.Done():
			return zero, ctx.Err()
		case <-time.After(pause):
		}
	}
}

// play reads WatchGame streams until the game is over, deciding whenever a view asks to.
func (b *bot) play(ctx context.Context) error {
	var from uint64 // 0: from now on; afterwards a resume point
	for {
		done, next, err := b.stream(ctx, from)
		if done || err != nil {
			return err
		}
		from = next
		b.stats["resumes"]++
	}
}

// stream reads one WatchGame stream from `from`. It returns done once the game is over, or the
// sequence to resume from when the stream broke (or was cut on purpose).
func (b *bot) stream(ctx context.Context, from uint64) (bool, uint64, error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watch, err := b.client.WatchGame(sctx, &pb.WatchGameRequest{
		GameId:       b.gameID,
		Viewer:       &pb.WatchGameRequest_SeatToken{SeatToken: b.token},
		FromSequence: from,
		IncludeViews: true,
	})
	if err != nil {
		return false, from, b.transient(ctx, "WatchGame", err)
	}
	first := true
	var previous uint64
	for {
		message, err := watch.Recv()
		if err != nil {
			if err == io.EOF {
				err = errEnded
			}
			return false, b.resumePoint(), b.transient(ctx, "WatchGame", err)
		}
		if err := b.check(message, from, first, previous); err != nil {
			return false, 0, err
		}
		first, previous = false, message.Sequence
		if message.View != nil {
			b.view = message.View
		}
		if _, ended := message.GetEvent().GetPayload().(*pb.Event_GameEnded); ended {
			return true, 0, nil
		}
		if b.view != nil && b.view.Status == pb.GameStatus_GAME_STATUS_FINISHED && message.Event == nil {
			return true, 0, nil // a finished game: one view, then the stream ends
		}
		if message.View != nil {
			if err := b.decideOn(ctx, message.View); err != nil {
				return false, 0, err
			}
		}
		if b.o.cut > 0 && b.cuts.Intn(b.o.cut) == 0 {
			b.stats["cuts"]++
			return false, b.resumePoint(), nil
		}
	}
}

// resumePoint is where to resume: after the last view (the documented resume point), or, half
// of the time when cutting on purpose, after the last event (maybe inside a decision).
func (b *bot) resumePoint() uint64 {
	if b.o.cut > 0 && b.cuts.Intn(2) == 0 {
		return b.last + 1
	}
	return b.view.GetLastSequence() + 1
}

// check holds one message to the resume contract (WatchGameRequest in game_service.proto).
func (b *bot) check(m *pb.WatchGameResponse, from uint64, first bool, previous uint64) error {
	broken := func(format string, args ...interface{}) error {
		return fmt.Errorf("stream from %d, message %d: %s", from, m.Sequence, fmt.Sprintf(format, args...))
	}
	if first {
		if m.View == nil || m.Event != nil {
			return broken("the first message must be a view alone")
		}
		if m.Sequence != m.View.LastSequence {
			return broken("the first view ends at %d", m.View.LastSequence)
		}
		if m.Resync || from == 0 {
			// A view of now: the events before it are not this client's to check.
			if m.Resync {
				b.stats["resyncs"]++
			}
			if m.Sequence > b.last {
				b.last = m.Sequence
			}
			return nil
		}
		if m.Sequence > from-1 {
			return broken("the first view is ahead of the resume point")
		}
		if from-1 == b.view.GetLastSequence() && m.Sequence != from-1 {
			return broken("resumed after the view at %d, got the view at %d", from-1, m.Sequence)
		}
		if m.Sequence < from-1 {
			b.stats["resumes inside a decision"]++
		}
		return nil
	}
	if m.Sequence != previous+1 || m.Event == nil || m.Event.Sequence != m.Sequence {
		return broken("expected event %d", previous+1)
	}
	if m.View != nil && m.View.LastSequence != m.Sequence {
		return broken("the view attached to event %d ends at %d", m.Sequence, m.View.LastSequence)
	}
	if seen, ok := b.events[m.Sequence]; ok {
		if !proto.Equal(seen, m.Event) {
			return broken("event %d came again, different", m.Sequence)
		}
		b.stats["events sent again"]++
	} else {
		if m.Sequence != b.last+1 {
			return broken("event %d after event %d: a gap", m.Sequence, b.last)
		}
		b.events[m.Sequence] = m.Event
		b.last = m.Sequence
	}
	return nil
}

// transient returns nil for errors worth a reconnect (after a pause), the error otherwise.
func (b *bot) transient(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Internal, codes.Unknown:
		logf("%s: %v; reconnecting", what, err)
		b.stats["reconnects"]++
		time.Sleep(200 * time.Millisecond)
		return nil
	}
	if errors.Is(err, errEnded) {
		logf("%s: %v; resuming", what, err)
		time.Sleep(200 * time.Millisecond)
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// decideOn plays while the seat has legal actions on a view it has not decided on yet; a
// refusal as stale means: fetch the current view and decide on that.
func (b *bot) decideOn(ctx context.Context, view *pb.View) error {
	for view.Status == pb.GameStatus_GAME_STATUS_IN_PROGRESS && len(view.LegalActions) > 0 &&
		view.StateVersion > b.floor {
		choice := view.LegalActions[b.rng.Intn(len(view.LegalActions))]
		request := &pb.SubmitActionRequest{
			GameId:         b.gameID,
			SeatToken:      b.token,
			Choice:         &pb.SubmitActionRequest_LegalIndex{LegalIndex: choice.Index},
			StateVersion:   view.StateVersion,
			IdempotencyKey: newKey(), // the same key on every resend of this decision
		}
		b.floor = view.StateVersion
		answer, err := retry(ctx, func(ctx context.Context) (*pb.SubmitActionResponse, error) {
			return b.client.SubmitAction(ctx, request)
		})
		if err == nil {
			// Views older than the state right after this decision may still be on their
			// way (the stream can lag behind): none of them needs a decision any more.
			b.floor = answer.StateVersion - 1
			b.stats["decisions"]++
			if b.o.verbose {
				logf("v%d: %s", view.StateVersion, choice.Label)
			}
			return nil
		}
		if status.Code(err) != codes.FailedPrecondition {
			return fmt.Errorf("SubmitAction: %w", err)
		}
		b.stats["refused as stale"]++
		for _, detail := range status.Convert(err).Details() {
			if mismatch, ok := detail.(*pb.VersionMismatch); ok {
				if b.o.verbose {
					logf("v%d refused (%s): now at version %d, awaiting %v", view.StateVersion,
						mismatch.Reason, mismatch.CurrentStateVersion, mismatch.AwaitingSeats)
				}
				if mismatch.CurrentStateVersion-1 > b.floor {
					b.floor = mismatch.CurrentStateVersion - 1
				}
			}
		}
		current, err := retry(ctx, func(ctx context.Context) (*pb.GetViewResponse, error) {
			return b.client.GetView(ctx, &pb.GetViewRequest{
				GameId: b.gameID, Viewer: &pb.GetViewRequest_SeatToken{SeatToken: b.token},
			})
		})
		if err != nil {
			return fmt.Errorf("GetView: %w", err)
		}
		view = current.View
	}
	return nil
}

func (b *bot) report(ctx context.Context) error {
	got, err := retry(ctx, func(ctx context.Context) (*pb.GetResultResponse, error) {
		return b.client.GetResult(ctx, &pb.GetResultRequest{GameId: b.gameID})
	})
	if err != nil {
		return fmt.Errorf("GetResult: %w", err)
	}
	fmt.Printf("game %s finished: %d events; seat %d: %v\n", b.gameID, b.last, b.seat, b.stats)
	fmt.Printf("winners %v\n", got.Result.Winners)
	for _, s := range got.Result.Seats {
		mark := ""
		if s.Seat == b.seat {
			mark = " <- this bot"
		}
		fmt.Printf("  seat %d %q: score %d, rank %d%s\n", s.Seat, s.Name, s.Score, s.Rank, mark)
	}
	return nil
}

// transportCredentials: TLS (the server's certificate checked against -ca-file, else the
// system's roots) or plaintext, for loopback and private networks only: seat tokens are
// bearer secrets.
// (grpc.WithInsecure: Debian's grpc-go, 1.33, has no credentials/insecure yet.)
func transportCredentials(o options) (grpc.DialOption, error) {
	if !o.tls && o.caFile == "" {
		return grpc.WithInsecure(), nil
	}
	config := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.caFile != "" {
		pem, err := os.ReadFile(o.caFile)
		if err != nil {
			return nil, err
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no PEM certificate in it", o.caFile)
		}
		config.RootCAs = roots
	}
	return grpc.WithTransportCredentials(credentials.NewTLS(config)), nil
}

func run(o options) error {
	// Keepalive: ping after 20 s without traffic, drop the connection if no answer within
	// 10 s (grpc-go's names; the server allows a ping a second at most).
	transport, err := transportCredentials(o)
	if err != nil {
		return err
	}
	conn, err := grpc.Dial(o.target, transport, grpc.WithKeepaliveParams(keepalive.ClientParameters{
		Time:                20 * time.Second,
		Timeout:             10 * time.Second,
		PermitWithoutStream: true,
	}))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	b := &bot{
		o:      o,
		client: pb.NewGameServiceClient(conn),
		rng:    mathrand.New(mathrand.NewSource(o.seed)),
		cuts:   mathrand.New(mathrand.NewSource(o.seed + 1)),
		gameID: o.gameID,
		events: map[uint64]*pb.Event{},
		floor:  -1,
		stats:  map[string]int{},
	}
	if err := b.join(ctx); err != nil {
		return err
	}
	if err := b.play(ctx); err != nil {
		return err
	}
	return b.report(ctx)
}

func main() {
	if err := run(parseFlags()); err != nil {
		logf("FAILED: %v", err)
		os.Exit(1)
	}
}
