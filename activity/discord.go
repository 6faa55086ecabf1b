package activity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// errRefused is Discord refusing what the page sent (a code, a token, an
// instance): a 4xx. Anything else (5xx, no answer) is Discord unavailable.
var errRefused = errors.New("refused by Discord")

// discordUser is the part of GET /users/@me the Activity uses.
type discordUser struct {
	ID     string `json:"id"`
	Locale string `json:"locale"`
}

// instance is an Activity instance (EmbeddedActivityInstance).
type instance struct {
	ApplicationID string `json:"application_id"`
	InstanceID    string `json:"instance_id"`
	Location      struct {
		ChannelID string `json:"channel_id"`
		GuildID   string `json:"guild_id"`
	} `json:"location"`
	Users []string `json:"users"`
}

// discord calls Discord's API to prove who plays: the code exchanged for
// the user's token, the user, the Activity's instance. Shapes from
// Discord's OpenAPI spec (UserPIIResponse, EmbeddedActivityInstance).
type discord struct {
	api    string // e.g. https://discord.com/api/v10
	appID  string
	secret string
	token  string // the bot's
	client *http.Client
}

// exchange trades an authorization code for the user's access token.
func (d *discord) exchange(ctx context.Context, code string) (string, error) {
	form := url.Values{
		"client_id": {d.appID}, "client_secret": {d.secret},
		"grant_type": {"authorization_code"}, "code": {code},
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	err := d.call(ctx, http.MethodPost, "/oauth2/token", "", strings.NewReader(form.Encode()), &tok)
	if err == nil && tok.AccessToken == "" {
		err = errors.New("no access_token in the answer")
	}
	if err != nil {
		return "", fmt.Errorf("exchange the code: %w", err)
	}
	return tok.AccessToken, nil
}

// user reads the user whose access token this is.
func (d *discord) user(ctx context.Context, access string) (discordUser, error) {
	var u discordUser
	if err := d.call(ctx, http.MethodGet, "/users/@me", "Bearer "+access, nil, &u); err != nil {
		return u, fmt.Errorf("read the user: %w", err)
	}
	if u.ID == "" {
		return u, errors.New("read the user: no id")
	}
	return u, nil
}

// instance reads the application's Activity instance id (404: none).
func (d *discord) instance(ctx context.Context, id string) (instance, error) {
	var in instance
	err := d.call(ctx, http.MethodGet, "/applications/"+d.appID+"/activity-instances/"+url.PathEscape(id), "Bot "+d.token, nil, &in)
	if err != nil {
		return in, fmt.Errorf("read the activity instance: %w", err)
	}
	return in, nil
}

// call sends one request and decodes a 200's JSON into out. A 4xx is
// errRefused; its body is not quoted (it may echo what was sent).
func (d *discord) call(ctx context.Context, method, path, auth string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, d.api+path, body)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	req.Header.Set("User-Agent", "DiscordBot (https://github.com/lesclefsdutresor/clefs, 1) clefs-activity")
	resp, err := d.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests:
		return fmt.Errorf("%w: %s %s: %s", errRefused, method, strings.SplitN(path, "/", 3)[1], resp.Status)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(out); err != nil {
		return fmt.Errorf("%s: decode: %w", path, err)
	}
	return nil
}
