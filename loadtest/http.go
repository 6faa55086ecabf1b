package loadtest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// httpClient plays through the HTTP interactions endpoint: it POSTs each
// interaction, signed as Discord signs it, to a real bot.Endpoint on
// loopback and reads the answer from the HTTP reply. The fake Discord
// serves the endpoint's REST calls (registration; edits after a deferral,
// which it refuses, not knowing interactions it did not send: a deferral
// is counted as an error anyway).
type httpClient struct {
	botRun
	url       string
	key       ed25519.PrivateKey
	hc        *http.Client
	appID     string
	commandID string // of /play, as registered with the fake
	seq       atomic.Int64
}

// startHTTP starts the fake Discord and a bot.Endpoint serving h on a free
// loopback port, and returns once the endpoint serves and the commands are
// registered. With spec, the bot is spec's binary in a process of its
// own instead, and h and obs are not used.
func startHTTP(ctx context.Context, h bot.Handler, obs bot.Observer, log *slog.Logger, players int, spec *botSpec) (*httpClient, error) {
	srv, err := startFake(0)
	if err != nil {
		return nil, err
	}
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("loadtest: application key: %w", err)
	}
	if spec != nil {
		return startHTTPProcess(ctx, srv, pub, key, players, spec)
	}
	e, err := bot.NewEndpoint(bot.EndpointOptions{
		Token: token, PublicKey: pub, Addr: "127.0.0.1:0", APIBase: srv.URL(),
		Logger: log, Observer: obs,
	}, h)
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("loadtest: %w", err)
	}
	c := newHTTPClient(srv, key, players)
	addr := make(chan net.Addr, 1)
	c.runInProcess(func(ctx context.Context) error { return e.Run(ctx, func(a net.Addr) { addr <- a }) })
	select {
	case a := <-addr:
		c.url = "http://" + a.String() + "/interactions"
	case err := <-c.done:
		c.stop()
		srv.Close()
		return nil, fmt.Errorf("loadtest: the interactions endpoint did not start: %w", err)
	case <-ctx.Done():
		return nil, errors.Join(ctx.Err(), c.close())
	}
	if err := c.findPlay(); err != nil {
		return nil, errors.Join(err, c.close())
	}
	return c, nil
}

// newHTTPClient is the client side of an endpoint: one kept-alive
// connection per player, as Discord keeps connections to an endpoint open.
func newHTTPClient(srv *fakediscord.Server, key ed25519.PrivateKey, players int) *httpClient {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = players
	return &httpClient{botRun: botRun{srv: srv}, key: key, hc: &http.Client{Transport: tr, Timeout: 10 * time.Second}, appID: srv.AppID()}
}

// startHTTPProcess starts the bot's binary serving its endpoint on a free
// loopback port (INTERACTIONS_ADDR, DISCORD_PUBLIC_KEY) against the fake
// Discord, and returns once the commands are registered and the endpoint
// accepts connections.
func startHTTPProcess(ctx context.Context, srv *fakediscord.Server, pub ed25519.PublicKey, key ed25519.PrivateKey, players int, spec *botSpec) (*httpClient, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		srv.Close()
		return nil, err
	}
	p, err := startBot(spec.bin, spec.with("DISCORD_API_BASE", srv.URL(), "INTERACTIONS_ADDR", addr,
		"DISCORD_PUBLIC_KEY", hex.EncodeToString(pub)), spec.out)
	if err != nil {
		srv.Close()
		return nil, err
	}
	c := newHTTPClient(srv, key, players)
	c.proc, c.url = p, "http://"+addr+"/interactions"
	err = p.await(ctx, "commands registered, endpoint listening on "+addr, func(ctx context.Context) error {
		if _, err := srv.WaitCommands(ctx, ""); err != nil {
			return err
		}
		return waitListening(ctx, addr)
	})
	if err == nil {
		err = c.findPlay()
	}
	if err != nil {
		return nil, errors.Join(err, c.close())
	}
	return c, nil
}

// findPlay reads the ID of /play as registered with the fake.
func (c *httpClient) findPlay() error {
	for _, cmd := range c.srv.Commands("") {
		if cmd.Name == "play" {
			c.commandID = cmd.ID
		}
	}
	if c.commandID == "" {
		return errors.New("loadtest: the bot registered no /play")
	}
	return nil
}

// snowflake returns a new ID shaped like Discord's.
func (c *httpClient) snowflake() string {
	ms := time.Now().UnixMilli() - 1420070400000 // Discord's epoch
	return strconv.FormatInt(ms<<22|c.seq.Add(1)&(1<<22-1), 10)
}

// interaction fills what every interaction of p carries, as Discord does
// for a guild member.
func (c *httpClient) interaction(p *player, typ discordgo.InteractionType) *discordgo.Interaction {
	id := c.snowflake()
	guildLocale := discordgo.EnglishUS
	return &discordgo.Interaction{
		ID: id, AppID: c.appID, Type: typ, Token: "aW50ZXJhY3Rpb246" + id, Version: 1,
		GuildID: p.guild, ChannelID: p.channel,
		AppPermissions: fakediscord.PermsMember | discordgo.PermissionAttachFiles,
		Member: &discordgo.Member{
			User:        &discordgo.User{ID: p.user, Username: "user" + p.user, GlobalName: "user" + p.user},
			JoinedAt:    time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC),
			Permissions: fakediscord.PermsMember,
			Roles:       []string{},
		},
		Locale: discordgo.EnglishUS, GuildLocale: &guildLocale,
		Context:                      discordgo.InteractionContextGuild,
		AuthorizingIntegrationOwners: map[discordgo.ApplicationIntegrationType]string{discordgo.ApplicationIntegrationGuildInstall: p.guild},
		Entitlements:                 []*discordgo.Entitlement{},
	}
}

func (c *httpClient) slash(ctx context.Context, p *player) (answer, error) {
	i := c.interaction(p, discordgo.InteractionApplicationCommand)
	i.Data = discordgo.ApplicationCommandInteractionData{
		ID: c.commandID, Name: "play", CommandType: discordgo.ChatApplicationCommand,
	}
	return c.post(ctx, p, i)
}

func (c *httpClient) click(ctx context.Context, p *player, customID string) (answer, error) {
	if p.msg == nil {
		return answer{}, errors.New("no message to click on")
	}
	i := c.interaction(p, discordgo.InteractionMessageComponent)
	i.Data = discordgo.MessageComponentInteractionData{CustomID: customID, ComponentType: discordgo.ButtonComponent}
	i.Message = p.msg
	return c.post(ctx, p, i)
}

// post sends i to the endpoint, signed with the application's key
// (X-Signature-Ed25519 = hex(sign(timestamp + body)), X-Signature-Timestamp
// = Unix seconds), and returns the message its reply shows.
func (c *httpClient) post(ctx context.Context, p *player, i *discordgo.Interaction) (answer, error) {
	body, err := encodeInteraction(i)
	if err != nil {
		return answer{}, fmt.Errorf("encode the interaction: %w", err)
	}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	sig := ed25519.Sign(c.key, append([]byte(ts), body...))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return answer{}, fmt.Errorf("build the request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Signature-Timestamp", ts)
	req.Header.Set("X-Signature-Ed25519", hex.EncodeToString(sig))
	resp, err := c.hc.Do(req)
	if err != nil {
		return answer{}, fmt.Errorf("POST %s: %w", c.url, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	at := time.Now()
	if err != nil {
		return answer{}, fmt.Errorf("read the reply: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return answer{}, fmt.Errorf("endpoint answered %s: %.200s", resp.Status, b)
	}
	msg, err := c.shown(p, i, b)
	if err != nil {
		return answer{}, err
	}
	return answer{msg: msg, at: at}, nil
}

// shown returns the message a reply shows, as Discord would attach it to
// the next click on it: a new message for type 4, the clicked message
// updated for type 7.
func (c *httpClient) shown(p *player, i *discordgo.Interaction, reply []byte) (*discordgo.Message, error) {
	var r struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data json.RawMessage                   `json:"data"`
	}
	if err := json.Unmarshal(reply, &r); err != nil {
		return nil, fmt.Errorf("decode the reply: %w", err)
	}
	// The response's data has a message's field names; discordgo.Message
	// decodes its components, InteractionResponseData does not.
	var data discordgo.Message
	if r.Type == discordgo.InteractionResponseChannelMessageWithSource || r.Type == discordgo.InteractionResponseUpdateMessage {
		if err := json.Unmarshal(r.Data, &data); err != nil {
			return nil, fmt.Errorf("decode the reply's message: %w", err)
		}
	}
	switch r.Type {
	case discordgo.InteractionResponseChannelMessageWithSource:
		m := &discordgo.Message{
			ID: c.snowflake(), ChannelID: p.channel, GuildID: p.guild,
			Type:      discordgo.MessageTypeChatInputCommand,
			Author:    &discordgo.User{ID: c.appID, Username: "Clefs", Bot: true},
			Timestamp: time.Now().UTC(), Content: data.Content, Embeds: data.Embeds,
			Components: data.Components, Flags: data.Flags,
			Mentions: []*discordgo.User{}, Attachments: []*discordgo.MessageAttachment{},
		}
		if i.Type == discordgo.InteractionMessageComponent {
			m.Type = discordgo.MessageTypeReply
		}
		return m, nil
	case discordgo.InteractionResponseUpdateMessage:
		if i.Message == nil {
			return nil, errors.New("an update of no message")
		}
		m := *i.Message
		m.Content, m.Embeds, m.Components = data.Content, data.Embeds, data.Components
		now := time.Now().UTC()
		m.EditedTimestamp = &now
		return &m, nil
	}
	return nil, fmt.Errorf("reply of type %d: the handler deferred (it took over 2 s), and its edit goes to a fake Discord that does not know this interaction", r.Type)
}

// close stops the endpoint, then the fake Discord.
func (c *httpClient) close() error {
	defer c.hc.CloseIdleConnections()
	return c.closeBot("interactions endpoint")
}

// encodeInteraction encodes i as Discord sends it. discordgo.Message does
// not encode its components (the field is tagged json:"-"), so those of a
// click's message are added to its object: the bot checks that the button
// clicked is on the card.
func encodeInteraction(i *discordgo.Interaction) ([]byte, error) {
	b, err := json.Marshal(i)
	if err != nil || i.Message == nil {
		return b, err
	}
	var obj, msg map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(obj["message"], &msg); err != nil {
		return nil, err
	}
	if msg["components"], err = json.Marshal(i.Message.Components); err != nil {
		return nil, err
	}
	if obj["message"], err = json.Marshal(msg); err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}
