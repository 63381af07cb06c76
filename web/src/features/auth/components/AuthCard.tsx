import { Card, Typography } from 'antd';
import type { ReactNode } from 'react';

/** The centred card every sign-in screen uses. */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="mg-auth-wrap">
      <Card className="mg-auth-card">
        <Typography.Title level={3} style={{ marginTop: 0, textAlign: 'center' }}>
          {title}
        </Typography.Title>
        {children}
      </Card>
    </div>
  );
}
